/** Options of `Database.sqlTransaction`. */
export interface SqlTransactionOptions {
  /**
   * Planner and session settings for this transaction only (SET LOCAL), sent with BEGIN in the same
   * round trip. Names and values are the caller's constants, never client input.
   */
  settings?: Readonly<Record<string, string>>;
}

const SETTING_NAME = /^[a-z_][a-z0-9_.]*$/;
const SETTING_VALUE = /^[A-Za-z0-9_.-]+$/;

/** BEGIN and the transaction's SET LOCAL settings as one simple-protocol query (one round trip). */
export function beginStatement(settings: SqlTransactionOptions['settings'] = {}): string {
  const sets = Object.entries(settings).map(([name, value]) => {
    if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(value)) throw new Error(`not a setting: ${name} = ${value}`);
    return `SET LOCAL ${name} = '${value}'`;
  });
  return ['BEGIN', ...sets].join('; ');
}

