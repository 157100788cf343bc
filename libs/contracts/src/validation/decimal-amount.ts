import { ValidationOptions, registerDecorator } from 'class-validator';

/** numeric(19, 4): at most 15 integer digits. */
export const MAX_AMOUNT = 999_999_999_999_999;

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
