import { Transform } from 'class-transformer';
import { IsIn } from 'class-validator';

/**
 * A query parameter taking one or several comma-separated values (`status=a,b`, also repeated
 * `status=a&status=b`). An empty value means "no filter"; an unknown value is a 400 whose
 * message names the parameter and the allowed values (spec list rule 5).
 */
export function CommaListOf(allowed: readonly string[]): PropertyDecorator {
  const toList = Transform(({ value }) => {
    if (value === undefined || value === null || value === '') return undefined;
    const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).map((v) => v.trim());
    return parts;
  });
  const isIn = IsIn(allowed, { each: true, message: `$property must be one or more comma-separated values of: ${allowed.join(', ')}` });
  return (target, propertyName) => {
    toList(target, propertyName);
    isIn(target, propertyName);
  };
}
