/** The last attempt of a failing webhook, as the disabled reason names it. */
export interface LastError {
  errorClass: string | null;
  statusCode: number | null;
}

const UNITS: [seconds: number, name: string][] = [
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** A period in the largest unit that divides it: 432000 → "5 days", 3600 → "1 hour", 90 → "90 seconds". */
export function describePeriod(seconds: number): string {
  const [size, name] = UNITS.find(([unit]) => seconds % unit === 0) ?? UNITS[UNITS.length - 1];
  const count = Math.round(seconds / size);
  return `${count} ${name}${count === 1 ? '' : 's'}`;
}

/** "http_status 503", "timeout", …: what the last attempt met; null when unknown. */
export function describeLastError(last: LastError | null): string | null {
  if (!last?.errorClass) return null;
  return last.statusCode === null ? last.errorClass : `${last.errorClass} ${last.statusCode}`;
}

/**
 * The disabledReason the dispatcher writes when it disables a webhook (docs/adr/0048), e.g.
 * "every delivery attempt failed for 5 days since 2026-11-24T10:00:00.000Z (last error: http_status 503)".
 */
export function autoDisabledReason(failingSince: Date, disableAfterSeconds: number, last: LastError | null): string {
  const error = describeLastError(last);
  return `every delivery attempt failed for ${describePeriod(disableAfterSeconds)} since ${failingSince.toISOString()}${error ? ` (last error: ${error})` : ''}`;
}

/**
 * How often each dispatcher looks for webhooks to disable: a tenth of the period, between 0.5 s
 * (tests shorten the period to seconds) and a minute (5 days: once a minute).
 */
export function disableCheckIntervalMs(disableAfterSeconds: number): number {
  return Math.min(60_000, Math.max(500, Math.round((disableAfterSeconds * 1000) / 10)));
}
