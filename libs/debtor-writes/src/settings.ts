/**
 * The planner settings of every transaction that writes debtors and debts: sequential scans off.
 * Every statement of a batch or of an import chunk names its rows by key; costed with a table's
 * size, a hash join over a full scan looks cheaper than a few thousand index probes until the table
 * is large, and its cost then grows with every portfolio's rows (docs/adr/0040; the import measured
 * 135 ms scanned against 14 ms probed per read at 400,000 debtors, docs/adr/0022).
 */
export const KEYED_ONLY_SETTINGS: Readonly<Record<string, string>> = { enable_seqscan: 'off' };

const SETTING_NAME = /^[a-z_][a-z0-9_.]*$/;
const SETTING_VALUE = /^[A-Za-z0-9_.-]+$/;

/** `SET LOCAL name = 'value'; …`, for a transaction begun by the caller (names and values are the caller's constants). */
export function setLocalSql(settings: Readonly<Record<string, string>>): string {
  return Object.entries(settings)
    .map(([name, value]) => {
      if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(value)) throw new Error(`not a setting: ${name} = ${value}`);
      return `SET LOCAL ${name} = '${value}'`;
    })
    .join('; ');
}
