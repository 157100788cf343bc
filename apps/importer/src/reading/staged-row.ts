import type { ImportField } from '@dc/contracts';
import { newId } from '@dc/database';
import type { ImportRow, RowCheck } from '@dc/imports';
import { Bit } from '../merging/fold-bits';
import { copyLine, CopyValue, copyValue } from './copy-text';

/** The columns COPY fills, in the order of `stagedRowLine`'s values (migration 20261124110000_import_staging). */
export const STAGING_COLUMNS = [
  'import_id', 'row_number', 'error_details',
  'debtor_external_id', 'identity_first_name', 'identity_last_name', 'identity_document_type', 'identity_document_number',
  'identity_entity_type', 'contact_name', 'address_street', 'address_city', 'address_state', 'address_postal_code', 'address_country',
  'phone_1', 'phone_1_e164', 'phone_2', 'phone_2_e164', 'phone_3', 'phone_3_e164', 'email_1', 'email_2',
  'compliance_opt_out', 'compliance_consent_to_call', 'compliance_consent_to_whatsapp', 'compliance_consent_to_email', 'compliance_consent_to_sms',
  'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency', 'debt_due_date', 'debt_issue_date', 'debt_description', 'debt_type',
  'present', 'new_debtor_id', 'new_debt_id', 'phone_1_id', 'phone_2_id', 'phone_3_id', 'email_1_id', 'email_2_id',
  'payment_external_id', 'payment_amount', 'payment_currency', 'payment_date', 'payment_method', 'payment_reference', 'new_payment_id',
  'source', 'error_column', 'error_message',
] as const;

const ERROR_PADDING_BEFORE_DEBT: null[] = new Array(STAGING_COLUMNS.indexOf('debt_external_id') - 3).fill(null);
/** A refused row's values after its debt_external_id, up to its source: null, but `present` (NOT NULL) is 0. */
const ERROR_PADDING_AFTER_DEBT: CopyValue[] = STAGING_COLUMNS.slice(STAGING_COLUMNS.indexOf('debt_total_amount'), STAGING_COLUMNS.indexOf('source'))
  .map((c) => (c === 'present' ? 0 : null));

/** One errorDetails line: `row <n>: <column>: <message>`, or `row <n>: <message>` for the record as a whole (docs/imports.md). */
export function errorLine(rowNumber: number, column: string | null, message: string): string {
  return column === null ? `row ${rowNumber}: ${message}` : `row ${rowNumber}: ${column}: ${message}`;
}

/** A refused row's columns at fault and its messages, as the rejected-rows file shows them (`; ` between several). */
export function rejection(issues: readonly { column: string | null; message: string }[]): { column: string; message: string } {
  const columns = [...new Set(issues.flatMap((i) => (i.column === null ? [] : [i.column])))];
  return {
    column: columns.join('; '),
    message: issues.map((i) => (i.column === null ? i.message : `${i.column}: ${i.message}`)).join('; '),
  };
}

/**
 * The COPY line of one checked record, with the record as it was in the file (`source`, for the
 * rejected-rows file should the row be refused, here or at the merge). A valid row gets its canonical
 * values, the bits of the optional fields it fills and the ids of what it may create; a refused row
 * gets its errorDetails lines, its rejection and, when valid, its debt external id (nothing else of
 * it is used).
 */
export function stagedRowLine(importId: string, rowNumber: number, check: RowCheck, columnOf: (field: ImportField) => string, source: readonly string[]): string {
  if (!check.ok) {
    const issues = check.issues.map((i) => ({ column: i.field === null ? null : columnOf(i.field), message: i.message }));
    const lines = issues.map((i) => errorLine(rowNumber, i.column, i.message));
    const { column, message } = rejection(issues);
    return copyLine([importId, rowNumber, lines, ...ERROR_PADDING_BEFORE_DEBT, check.debtExternalId, ...ERROR_PADDING_AFTER_DEBT, source, column, message]);
  }
  const r = check.row;
  const [p1, p2, p3] = r.phones;
  const [e1, e2] = r.emails;
  const d = r.debt;
  const pay = r.payment;
  const v = copyValue;
  // Written out rather than built from an array: this runs once per record of the file.
  return (
    `${v(importId)}\t${rowNumber}\t\\N\t` +
    `${v(r.debtorExternalId)}\t${v(r.firstName)}\t${v(r.lastName)}\t${v(r.documentType)}\t${v(r.documentNumber)}\t` +
    `${v(r.entityType)}\t${v(r.contactName)}\t${v(r.street)}\t${v(r.city)}\t${v(r.state)}\t${v(r.postalCode)}\t${v(r.country)}\t` +
    `${v(p1?.phone)}\t${v(p1?.e164)}\t${v(p2?.phone)}\t${v(p2?.e164)}\t${v(p3?.phone)}\t${v(p3?.e164)}\t${v(e1)}\t${v(e2)}\t` +
    `${v(r.optOut)}\t${v(r.consentToCall)}\t${v(r.consentToWhatsapp)}\t${v(r.consentToEmail)}\t${v(r.consentToSms)}\t` +
    `${v(d?.externalId)}\t${v(d?.totalAmount)}\t${v(d?.paidAmount)}\t${v(d?.currency)}\t` +
    `${v(d?.dueDate)}\t${v(d?.issueDate)}\t${v(d?.description)}\t${v(d?.debtType)}\t` +
    `${presentBits(r)}\t${newId('dbt')}\t${d ? newId('debt') : '\\N'}\t` +
    `${p1 ? newId('phn') : '\\N'}\t${p2 ? newId('phn') : '\\N'}\t${p3 ? newId('phn') : '\\N'}\t` +
    `${e1 ? newId('eml') : '\\N'}\t${e2 ? newId('eml') : '\\N'}\t` +
    `${v(pay?.externalId)}\t${v(pay?.amount)}\t${v(pay?.currency)}\t${v(pay?.date)}\t${v(pay?.method)}\t${v(pay?.reference)}\t` +
    `${pay ? newId('pay') : '\\N'}\t${copyValue(source)}\t\\N\t\\N\n`
  );
}

/** Which optional fields the row fills (fold-bits.ts). */
export function presentBits(r: ImportRow): number {
  let bits = Bit.identity;
  if (r.debtorExternalId !== null) bits |= Bit.externalId;
  if (r.lastName !== null) bits |= Bit.lastName;
  if (r.entityType !== null) bits |= Bit.entityType;
  if (r.contactName !== null) bits |= Bit.contactName;
  if (r.street !== null) bits |= Bit.street;
  if (r.city !== null) bits |= Bit.city;
  if (r.state !== null) bits |= Bit.state;
  if (r.postalCode !== null) bits |= Bit.postalCode;
  if (r.country !== null) bits |= Bit.country;
  if (r.optOut !== null) bits |= Bit.optOut;
  if (r.consentToCall !== null) bits |= Bit.consentToCall;
  if (r.consentToWhatsapp !== null) bits |= Bit.consentToWhatsapp;
  if (r.consentToEmail !== null) bits |= Bit.consentToEmail;
  if (r.consentToSms !== null) bits |= Bit.consentToSms;
  if (r.phones.length) bits |= Bit.phones;
  if (r.emails.length) bits |= Bit.emails;
  const debt = r.debt;
  if (debt) {
    bits |= Bit.snapshot;
    if (debt.dueDate !== null) bits |= Bit.dueDate;
    if (debt.issueDate !== null) bits |= Bit.issueDate;
    if (debt.description !== null) bits |= Bit.description;
    if (debt.debtType !== null) bits |= Bit.debtType;
  }
  return bits;
}
