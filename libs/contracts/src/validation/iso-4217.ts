import { codes } from 'currency-codes';
import { ValidationOptions, registerDecorator } from 'class-validator';

// XXX (no currency) and XTS (testing) are ISO 4217 codes but never the currency of a debt: refused.
const NOT_MONEY = new Set(['XXX', 'XTS']);
// Codes in force that currency-codes 2.2.0 (its latest release) lacks: XCG, the Caribbean guilder
// (ISO 4217 amendment 176, 2025), which replaces ANG.
const NEWER_CODES = ['XCG'];
const CURRENCIES = new Set([...codes().filter((code) => !NOT_MONEY.has(code)), ...NEWER_CODES]);

/** True for a real, current ISO 4217 alphabetic code (the `currency-codes` package's table). */
export function isIso4217(code: unknown): code is string {
  return typeof code === 'string' && CURRENCIES.has(code);
}

export function IsCurrencyCode(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCurrencyCode',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `$property must be an ISO 4217 currency code such as EUR or USD`, ...options },
      validator: { validate: (value: unknown) => isIso4217(value) },
    });
}

/** The shape of a currency code (three capital letters); `isIso4217` says whether it is a real one. */
export const CURRENCY_CODE_PATTERN = /^[A-Z]{3}$/;

/** The shape of a country code (ISO 3166-1 alpha-2): two capital letters. */
export const COUNTRY_CODE_PATTERN = /^[A-Z]{2}$/;
