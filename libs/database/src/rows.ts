/**
 * A contract view as a query returns it: SQL aliases every column to the view's field name and
 * builds nested objects itself, so the only difference is that the timestamp fields `K` (ISO text in
 * the view) arrive from the driver as `Date`. Derive row types from views with it, never by hand:
 * `type DebtRow = Stored<DebtView, 'createdAt' | 'updatedAt'>`.
 */
export type Stored<V, K extends keyof V> = Omit<V, K> & { [P in K]: null extends V[P] ? Date | null : Date };

/** `R` with every `Date` field as its ISO text (what `isoDates` returns). */
export type IsoDated<R> = {
  [P in keyof R]: R[P] extends Date ? string : R[P] extends Date | null ? Exclude<R[P], Date> | string : R[P];
};

/**
 * The one step from a stored row to its view: every top-level `Date` becomes `toISOString()` text
 * (the API's timestamp format), in place, so the fields keep the order the SQL gave them.
 */
export function isoDates<R extends object>(row: R): IsoDated<R> {
  const fields = row as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value instanceof Date) fields[key] = value.toISOString();
  }
  return row as IsoDated<R>;
}

/**
 * SQL for a timestamptz as the API's timestamp text, the same as JavaScript's `toISOString()` of
 * the Date node-pg would build (UTC, milliseconds, `Z`), for views Postgres serialises itself.
 * Our columns are timestamptz(3); for any finer one, node-pg truncates the microseconds while
 * to_char's MS rounds them, hence the date_trunc.
 */
export function isoTimestampSql(expression: string): string {
  return `to_char(date_trunc('milliseconds', ${expression} AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
