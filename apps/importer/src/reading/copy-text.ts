/**
 * Values in PostgreSQL's COPY text format (one line per row, tab-separated): `\N` is NULL, and a
 * backslash, tab, newline or carriage return inside a value is escaped. Arrays are written as array
 * literals, their elements double-quoted, then escaped as text (a NUL in an element becomes U+FFFD).
 */

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export type CopyValue = string | number | boolean | null | undefined | readonly string[];

export function copyText(value: string): string {
  return SPECIAL.test(value) ? value.replace(SPECIAL_ALL, (c) => ESCAPES[c]) : value;
}

export function copyValue(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return copyText(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number') return String(value);
  // A text value cannot hold NUL (a record's cells, as read, can): it is stored as U+FFFD.
  return copyText(`{${value.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`.replace(/\0/g, '\uFFFD'));
}

/** One COPY line (with its newline) of `values`, in column order. */
export function copyLine(values: readonly CopyValue[]): string {
  let line = copyValue(values[0]);
  for (let i = 1; i < values.length; i += 1) line += `\t${copyValue(values[i])}`;
  return `${line}\n`;
}
