import { ValidationOptions, registerDecorator } from 'class-validator';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO 8601 date or date-time (extended format, `T` separator, optional seconds, fraction and offset).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

function realDay(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
}

/** `YYYY-MM-DD` naming a day that exists (2024-02-29 yes, 2023-02-29 no). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE.exec(value);
  return m !== null && realDay(m[1], m[2], m[3]);
}

/** An ISO 8601 date (`YYYY-MM-DD`) or date-time (`YYYY-MM-DDThh:mm[:ss[.f]][Z|±hh:mm]`) with real values. */
export function isIsoDateOrDateTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE_TIME.exec(value);
  if (!m || !realDay(m[1], m[2], m[3])) return false;
  const [hh, mm, ss, oh, om] = [m[4], m[5], m[6], m[7], m[8]].map((v) => (v === undefined ? 0 : Number(v)));
  return hh <= 23 && mm <= 59 && ss <= 59 && oh <= 23 && om <= 59;
}

export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be a real date in the form YYYY-MM-DD', ...options },
      validator: { validate: (value: unknown) => isCalendarDate(value) },
    });
}

export function IsIsoDateOrDateTime(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIsoDateOrDateTime',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDThh:mm:ssZ)', ...options },
      validator: { validate: (value: unknown) => isIsoDateOrDateTime(value) },
    });
}
