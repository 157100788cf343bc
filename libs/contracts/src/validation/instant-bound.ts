// ISO 8601 date, or date-time with minutes, optional seconds and fraction, optional offset (none = UTC).
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/;
const DAY_MS = 86_400_000;

/**
 * The instant a `from`/`to` filter value stands for (spec list rule 7), or null when it is not
 * parseable ISO 8601. A date alone is the start of that UTC day for `from` and its last
 * millisecond for `to` (the end of the day, inclusive). A date-time without offset is UTC.
 */
export function parseInstantBound(value: unknown, bound: 'from' | 'to'): Date | null {
  if (typeof value !== 'string') return null;
  const m = INSTANT.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = Date.UTC(y, mo - 1, d);
  const check = new Date(day);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  if (m[4] === undefined) return new Date(bound === 'from' ? day : day + DAY_MS - 1);
  const [hh, mm, ss] = [Number(m[4]), Number(m[5]), m[6] === undefined ? 0 : Number(m[6])];
  if (hh > 23 || mm > 59 || ss > 59) return null;
  let offsetMin = 0;
  if (m[8] !== undefined && m[8] !== 'Z') {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  // Timestamps are stored with millisecond precision: extra fraction digits are truncated.
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  return new Date(day + ((hh * 60 + mm - offsetMin) * 60 + ss) * 1000 + ms);
}
