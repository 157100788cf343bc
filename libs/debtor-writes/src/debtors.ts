import { ROW, updateSql, type FieldRule, type UpdateOptions } from './statement';

/**
 * The debtor fields a write carries, each with its rule. `status` and `priority` are not among them:
 * neither the batch nor an import ever writes them. The external id is written only by the insert
 * (a debtor's external id never changes). `absent` is what an absent flag becomes on insert: the
 * column's DEFAULT in the migration, kept equal to it.
 */
export const DEBTOR_FIELDS = [
  { alias: 'fn', column: 'identity_first_name', type: 'text', rule: 'overwrite' },
  { alias: 'dt', column: 'identity_document_type', type: 'text', rule: 'overwrite' },
  { alias: 'dn', column: 'identity_document_number', type: 'text', rule: 'overwrite' },
  { alias: 'ln', column: 'identity_last_name', type: 'text', rule: 'kept' },
  { alias: 'et', column: 'identity_entity_type', type: 'text', rule: 'kept' },
  { alias: 'cn', column: 'contact_info_contact_name', type: 'text', rule: 'kept' },
  { alias: 'st', column: 'contact_info_address_street', type: 'text', rule: 'kept' },
  { alias: 'ci', column: 'contact_info_address_city', type: 'text', rule: 'kept' },
  { alias: 'sa', column: 'contact_info_address_state', type: 'text', rule: 'kept' },
  { alias: 'pc', column: 'contact_info_address_postal_code', type: 'text', rule: 'kept' },
  { alias: 'co', column: 'contact_info_address_country', type: 'text', rule: 'kept' },
  { alias: 'oo', column: 'compliance_opt_out', type: 'boolean', rule: 'kept', absent: 'false' },
  { alias: 'cc', column: 'compliance_consent_to_call', type: 'boolean', rule: 'kept', absent: 'true' },
  { alias: 'cw', column: 'compliance_consent_to_whatsapp', type: 'boolean', rule: 'kept', absent: 'false' },
  { alias: 'ce', column: 'compliance_consent_to_email', type: 'boolean', rule: 'kept', absent: 'true' },
  { alias: 'cs', column: 'compliance_consent_to_sms', type: 'boolean', rule: 'kept', absent: 'true' },
] as const satisfies readonly { alias: string; column: string; type: 'text' | 'boolean'; rule: FieldRule; absent?: 'true' | 'false' }[];

export type DebtorField = (typeof DEBTOR_FIELDS)[number];
/** A debtor field's name in the rows to write. Each path maps every one to its source (a DTO property, a staged column). */
export type DebtorAlias = DebtorField['alias'];

const onInsert = (f: DebtorField) => ('absent' in f ? `COALESCE(${ROW}.${f.alias}, ${f.absent})` : `${ROW}.${f.alias}`);
const onUpdate = (f: DebtorField): [string, string] => [f.column, f.rule === 'overwrite' ? `${ROW}.${f.alias}` : `COALESCE(${ROW}.${f.alias}, d.${f.column})`];
const DEBTOR_ASSIGNMENTS = DEBTOR_FIELDS.map(onUpdate);

/**
 * New debtors. `rows` (named `u`): `id`, `ext` (the external id, or null) and every DEBTOR_FIELDS
 * alias; `portfolio` a placeholder of the portfolio id.
 */
export function insertDebtorsSql(rows: string, portfolio: string): string {
  return `INSERT INTO debtors (id, portfolio_id, external_id, ${DEBTOR_FIELDS.map((f) => f.column).join(', ')})
  SELECT ${ROW}.id, ${portfolio}, ${ROW}.ext, ${DEBTOR_FIELDS.map(onInsert).join(', ')}
  FROM ${rows}`;
}

/** Stored debtors: required identity fields overwrite, optional ones when sent. `rows`: `id` and every alias. */
export function updateDebtorsSql(rows: string, options: UpdateOptions): string {
  return updateSql('debtors', 'd', DEBTOR_ASSIGNMENTS, rows, options);
}

/**
 * Whether a write begins an opt-out: complianceOptOut sent true for a debtor not opted out already
 * (a new debtor is not). Such debtors get the opt-out's side effects (recordOptOutStatements).
 */
export function optOutBegins(sent: boolean | null | undefined, stored: boolean | undefined): boolean {
  return sent === true && stored !== true;
}
