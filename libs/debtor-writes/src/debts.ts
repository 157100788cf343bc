import { ROW, updateSql, type FieldRule, type UpdateOptions } from './statement';

/**
 * A debt is a full snapshot: its amounts are always sent and overwrite; its optional texts overwrite
 * when sent and are kept when absent. Its external id, debtor and currency are written by the insert
 * only (the currency of a debt never changes: the planners refuse another one before any SQL).
 */
export const DEBT_FIELDS = [
  { alias: 'total', column: 'total_amount', type: 'numeric', rule: 'overwrite' },
  { alias: 'paid', column: 'paid_amount', type: 'numeric', rule: 'overwrite' },
  { alias: 'due', column: 'due_date', type: 'text', rule: 'kept' },
  { alias: 'iss', column: 'issue_date', type: 'text', rule: 'kept' },
  { alias: 'descr', column: 'description', type: 'text', rule: 'kept' },
  { alias: 'dtype', column: 'debt_type', type: 'text', rule: 'kept' },
] as const satisfies readonly { alias: string; column: string; type: 'numeric' | 'text'; rule: FieldRule }[];

export type DebtField = (typeof DEBT_FIELDS)[number];
export type DebtAlias = DebtField['alias'];

/**
 * A debt's status, derived from its amounts: `paid` when the paid amount equals the total (numeric,
 * so 100 and 100.0000 are equal), else `active`. `stored` (the row being updated) keeps `cancelled`:
 * only an operator cancels a debt, and no snapshot undoes it.
 */
export function debtStatusSql(stored?: string): string {
  const kept = stored ? `WHEN ${stored}.status = 'cancelled' THEN 'cancelled' ` : '';
  return `CASE ${kept}WHEN ${ROW}.paid = ${ROW}.total THEN 'paid' ELSE 'active' END`;
}

const onUpdate = (f: DebtField): [string, string] => [f.column, f.rule === 'overwrite' ? `${ROW}.${f.alias}` : `COALESCE(${ROW}.${f.alias}, t.${f.column})`];
const DEBT_ASSIGNMENTS: [string, string][] = [...DEBT_FIELDS.map(onUpdate), ['status', debtStatusSql('t')]];

/**
 * New debts. `rows` (named `u`): `id`, `debtor_id`, `ext`, `cur` and every DEBT_FIELDS alias
 * (amounts as numeric); `portfolio` a placeholder of the portfolio id.
 */
export function insertDebtsSql(rows: string, portfolio: string): string {
  return `INSERT INTO debts (id, portfolio_id, debtor_id, external_id, currency, status, ${DEBT_FIELDS.map((f) => f.column).join(', ')})
  SELECT ${ROW}.id, ${portfolio}, ${ROW}.debtor_id, ${ROW}.ext, ${ROW}.cur, ${debtStatusSql()}, ${DEBT_FIELDS.map((f) => `${ROW}.${f.alias}`).join(', ')}
  FROM ${rows}`;
}

/** Stored debts: amounts overwritten, status derived unless cancelled, optional texts kept when absent. */
export function updateDebtsSql(rows: string, options: UpdateOptions): string {
  return updateSql('debts', 't', DEBT_ASSIGNMENTS, rows, options);
}
