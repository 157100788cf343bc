import { ValidationOptions, registerDecorator } from 'class-validator';

/**
 * The largest amount a JSON number carries exactly with 4 decimals. A double holds every decimal of
 * up to 15 significant digits exactly, so 11 integer digits and 4 decimals; above that, digits are
 * lost in parsing before any code sees them (98765432101234.5678 arrives as 98765432101234.56), so
 * larger amounts are refused rather than stored rounded. numeric(19, 4) itself holds 15 integer digits.
 */
export const MAX_AMOUNT = 99_999_999_999.9999;

/** The class-validator message of an amount over MAX_AMOUNT. */
export const MAX_AMOUNT_MESSAGE = `$property must not be greater than ${MAX_AMOUNT} (larger amounts cannot be carried exactly by a JSON number)`;

/**
 * A finite JSON number with at most 4 decimal places, so that numeric(19, 4) stores it exactly.
 * (class-validator's `maxDecimalPlaces` throws on exponent notation such as 1e-7.)
 */
export function hasAtMostFourDecimals(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Number((value).toFixed(4)) === value;
}

export function HasAtMostFourDecimals(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'hasAtMostFourDecimals',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be a number with at most 4 decimal places', ...options },
      validator: { validate: (value: unknown) => hasAtMostFourDecimals(value) },
    });
}

/**
 * An amount as numeric(19,4) text, or null when it is negative, has more than 4 decimals or over 15
 * integer digits. `scaled` is the amount × 10⁴, for exact comparisons. Shared by the debtor batch
 * (JSON numbers) and the CSV importer (decimal text with a dot, e.g. "1250.5").
 */
export function parseAmount(value: number | string): { text: string; scaled: bigint } | null {
  if (typeof value === 'number' && (!Number.isFinite(value) || value < 0)) return null;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(typeof value === 'number' ? String(value) : value);
  if (!match) return null; // exponent notation (numbers below 1e-6 or above 1e21), signs, commas
  const [, int, dec = ''] = match;
  if (dec.length > 4 || int.length > 15) return null;
  const digits = int.replace(/^0+(?=\d)/, '');
  return { text: dec ? `${digits}.${dec}` : digits, scaled: BigInt(int + dec.padEnd(4, '0')) };
}
