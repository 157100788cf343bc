import {
  BATCH_DATE_PATTERN, COUNTRY_CODE_PATTERN, CURRENCY_CODE_PATTERN, DebtorBatchLimits, IMPORT_FIELDS, ImportField, isIso4217, isIsoDateOrDateTime,
  MAX_AMOUNT, normalisePhone, parseAmount, PAYMENT_METHODS, PaymentMethod, REQUIRED_DEBT_FIELDS, REQUIRED_PAYMENT_FIELDS,
} from '@dc/contracts';
import { isEmail } from 'class-validator';
import type { FieldColumns } from './column-mapping';
import { unneutraliseCell } from './spreadsheet-safety';

/**
 * The per-row rules of a CSV import (docs/adr/0022): the debtor batch's rules and limits
 * (docs/adr/0012) applied to one record's cells. Pure: no I/O, no state between rows except
 * what the constructor precomputes from the mapping.
 */

export interface ImportPhone {
  /** The cell as written (trimmed). */
  phone: string;
  /** Canonical E.164 (normalisePhone): the identity of the number. */
  e164: string;
}

export interface ImportDebt {
  externalId: string;
  /** numeric(19,4) text (parseAmount). */
  totalAmount: string;
  /** numeric(19,4) text; an empty cell is 0 (a debt is a full snapshot). */
  paidAmount: string;
  currency: string;
  dueDate: string | null;
  issueDate: string | null;
  description: string | null;
  debtType: string | null;
}

/** A row's payment, with the rules of POST /v1/payments (docs/imports.md "Payments in a load"). */
export interface ImportPayment {
  /** The file's id of the payment: a reload registers it once (kept internally; the API's externalId stays null). */
  externalId: string;
  /** numeric(19,4) text, above 0. */
  amount: string;
  /** null: derived at the merge as POST /v1/payments derives it (the debt, the debtor's live debts, the portfolio). */
  currency: string | null;
  date: string;
  method: PaymentMethod | null;
  reference: string | null;
}

/** One valid record in canonical form. Empty cells (after trimming) are null: absent. */
export interface ImportRow {
  debtorExternalId: string | null;
  firstName: string;
  lastName: string | null;
  documentType: string;
  documentNumber: string;
  entityType: string | null;
  contactName: string | null;
  street: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
  /** In column order phone_1..3, empty cells left out. */
  phones: ImportPhone[];
  /** In column order email_1..2, empty cells left out. */
  emails: string[];
  optOut: boolean | null;
  consentToCall: boolean | null;
  consentToWhatsapp: boolean | null;
  consentToEmail: boolean | null;
  consentToSms: boolean | null;
  /** null when every debt_* cell is empty (a debtor-only row). */
  debt: ImportDebt | null;
  /** null when every payment_* cell is empty. */
  payment: ImportPayment | null;
}

/** A broken rule: `field` null is the record as a whole (its number of fields). */
export interface RowIssue {
  field: ImportField | null;
  message: string;
}

export type RowCheck =
  | { ok: true; row: ImportRow }
  | {
      ok: false;
      issues: RowIssue[];
      /** The row's debt_external_id when that cell itself is valid: reconcile counts the debt as present in the file. */
      debtExternalId: string | null;
    };

const L = DebtorBatchLimits;
/** Values quoted back in messages are cut to this length. */
const ECHO_CHARS = 64;

const PHONE_FIELDS = ['phone_1', 'phone_2', 'phone_3'] as const;
const EMAIL_FIELDS = ['email_1', 'email_2'] as const;
const DEBT_FIELDS = [
  'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency', 'debt_due_date', 'debt_issue_date', 'debt_description', 'debt_type',
] as const;

const PAYMENT_FIELDS = ['payment_external_id', 'payment_amount', 'payment_currency', 'payment_date', 'payment_method', 'payment_reference'] as const;
/** What POST /v1/payments accepts: MAX_AMOUNT × 10⁴ (amounts the API's JSON numbers carry exactly). */
const MAX_PAYMENT_SCALED = BigInt(Math.round(MAX_AMOUNT * 10_000));
/** POST /v1/payments' limits on the payment's texts. */
const PAYMENT_LIMITS = { externalId: 128, reference: 255 } as const;

const BOOLEANS: Record<string, boolean> = { true: true, yes: true, '1': true, false: false, no: false, '0': false };

export const RowMessages = {
  fieldCount: (got: number, expected: number) => `the record has ${got} fields; the header has ${expected}`,
  notUtf8: 'is not valid UTF-8 text',
  nul: 'contains a NUL character (U+0000), which cannot be stored',
  required: 'is required',
  requiredForDebt: 'is required when the row has a debt (a debt_* cell is filled)',
  requiredForPayment: 'is required when the row has a payment (a payment_* cell is filled)',
  paymentAmount: `must be above 0 and at most ${MAX_AMOUNT}, with at most 4 decimals (a dot separates the decimals)`,
  paymentMethod: `must be one of ${PAYMENT_METHODS.join(', ')}`,
  tooLong: (max: number) => `must be at most ${max} characters`,
  country: 'must be two capital letters (ISO 3166-1 alpha-2)',
  phone: (raw: string) => `${echo(raw)} is not an E.164 number (+, country code, 9 to 15 digits in total)`,
  samePhone: (raw: string, earlier: string) => `${echo(raw)} is the same number as ${earlier}`,
  email: 'must be an email address',
  boolean: 'must be true, false, yes, no, 1 or 0',
  totalAmount: 'must be above 0 with at most 4 decimals and 15 integer digits (a dot separates the decimals)',
  paidAmount: 'must be 0 or more with at most 4 decimals and 15 integer digits (a dot separates the decimals)',
  paidOverTotal: (paid: string, total: string) => `${paid} is greater than the total amount (${total})`,
  currencyPattern: 'must be three capital letters (ISO 4217)',
  currencyUnknown: (code: string) => `${code} is not an ISO 4217 currency code`,
  datePattern: 'must be a date YYYY-MM-DD, optionally followed by a time THH:MM[:SS[.fff]][Z|±HH:MM]',
  dateReal: 'must be a real calendar date (and time of day)',
} as const;

function echo(value: string): string {
  const text = value.length > ECHO_CHARS ? `${value.slice(0, ECHO_CHARS)}…` : value;
  return JSON.stringify(text);
}

const FIELD_ORDINAL = new Map<ImportField, number>(IMPORT_FIELDS.map((f, i) => [f, i]));
const ord = (field: ImportField): number => FIELD_ORDINAL.get(field) ?? -1;

/**
 * Validates records against the mapping: `check(record)` returns the canonical row or every
 * broken rule. A cell first loses the apostrophe of formula neutralisation (unneutraliseCell: the
 * rejected rows file neutralises formula-like cells, and a fixed file is loaded back as it was
 * written), then is trimmed; an empty cell is absent. A cell holding U+FFFD (what the UTF-8
 * decoder leaves for bytes that are not UTF-8) or U+0000 (which Postgres cannot store) is refused. One instance checks one record at a
 * time (it reuses its buffers: the importer runs a million records through it).
 */
export class RowRules {
  /** [field ordinal, column index] of each mapped field. */
  private readonly mapped: [number, number][];
  private readonly hasDebtColumns: boolean;
  private readonly hasPaymentColumns: boolean;
  /** The current record's cells by field ordinal (null: empty or unmapped), and its issues. */
  private readonly cells: (string | null)[] = new Array<string | null>(IMPORT_FIELDS.length).fill(null);
  private readonly unreadable: boolean[] = new Array<boolean>(IMPORT_FIELDS.length).fill(false);
  private issues: RowIssue[] = [];

  constructor(
    columns: FieldColumns,
    private readonly headerLength: number,
  ) {
    this.mapped = (Object.entries(columns) as [ImportField, number][]).filter(([, index]) => index >= 0).map(([f, index]) => [ord(f), index]);
    this.hasDebtColumns = DEBT_FIELDS.some((f) => columns[f] !== undefined);
    this.hasPaymentColumns = PAYMENT_FIELDS.some((f) => columns[f] !== undefined);
  }

  check(record: string[]): RowCheck {
    if (record.length !== this.headerLength) {
      return { ok: false, issues: [{ field: null, message: RowMessages.fieldCount(record.length, this.headerLength) }], debtExternalId: null };
    }
    this.issues = [];
    this.cells.fill(null);
    this.unreadable.fill(false);
    for (const [field, index] of this.mapped) {
      // unneutraliseCell: one charCode comparison for a cell that does not start with an apostrophe.
      const value = unneutraliseCell(record[index]).trim();
      if (value === '') continue;
      // U+FFFD: what the UTF-8 decoder leaves for bytes that are not UTF-8; U+0000: what Postgres text cannot hold.
      const notUtf8 = value.includes('\uFFFD');
      if (notUtf8 || value.includes('\u0000')) {
        this.unreadable[field] = true;
        this.issue(IMPORT_FIELDS[field], notUtf8 ? RowMessages.notUtf8 : RowMessages.nul);
      } else this.cells[field] = value;
    }

    const row: Omit<ImportRow, 'debt' | 'payment'> = {
      debtorExternalId: this.text('debtor_external_id', L.externalId),
      firstName: this.text('identity_first_name', L.name, true) ?? '',
      lastName: this.text('identity_last_name', L.name),
      documentType: this.text('identity_document_type', L.type, true) ?? '',
      documentNumber: this.text('identity_document_number', L.documentNumber, true) ?? '',
      entityType: this.text('identity_entity_type', L.type),
      contactName: this.text('contact_name', L.name),
      street: this.text('address_street', L.street),
      city: this.text('address_city', L.addressPart),
      state: this.text('address_state', L.addressPart),
      postalCode: this.text('address_postal_code', L.postalCode),
      country: this.country(),
      phones: this.phones(),
      emails: this.emails(),
      optOut: this.flag('compliance_opt_out'),
      consentToCall: this.flag('compliance_consent_to_call'),
      consentToWhatsapp: this.flag('compliance_consent_to_whatsapp'),
      consentToEmail: this.flag('compliance_consent_to_email'),
      consentToSms: this.flag('compliance_consent_to_sms'),
    };
    const debt = this.hasDebtColumns ? this.debt() : { value: null, externalId: null };
    const payment = this.hasPaymentColumns ? this.payment() : null;
    if (this.issues.length) return { ok: false, issues: this.issues, debtExternalId: debt.externalId };
    return { ok: true, row: { ...row, debt: debt.value, payment } };
  }

  private issue(field: ImportField, message: string): null {
    this.issues.push({ field, message });
    return null;
  }

  private cell(field: ImportField): string | null {
    return this.cells[ord(field)];
  }

  private filled(field: ImportField): boolean {
    const i = ord(field);
    return this.cells[i] !== null || this.unreadable[i];
  }

  /** The cell, or null (with an issue when required or too long). */
  private text(field: ImportField, max: number, required = false): string | null {
    const value = this.cell(field);
    if (value === null) return required && !this.filled(field) ? this.issue(field, RowMessages.required) : null;
    return value.length > max ? this.issue(field, RowMessages.tooLong(max)) : value;
  }

  private flag(field: ImportField): boolean | null {
    const value = this.cell(field);
    if (value === null) return null;
    const parsed = BOOLEANS[value.toLowerCase()];
    return parsed === undefined ? this.issue(field, RowMessages.boolean) : parsed;
  }

  private country(): string | null {
    const country = this.cell('address_country');
    return country !== null && !COUNTRY_CODE_PATTERN.test(country) ? this.issue('address_country', RowMessages.country) : country;
  }

  private phones(): ImportPhone[] {
    const phones: ImportPhone[] = [];
    let seen: Map<string, ImportField> | undefined;
    for (const field of PHONE_FIELDS) {
      const raw = this.text(field, L.phone);
      if (raw === null) continue;
      const e164 = normalisePhone(raw);
      if (!e164) {
        this.issue(field, RowMessages.phone(raw));
        continue;
      }
      const earlier = seen?.get(e164);
      if (earlier) {
        this.issue(field, RowMessages.samePhone(raw, earlier));
        continue;
      }
      (seen ??= new Map()).set(e164, field);
      phones.push({ phone: raw, e164 });
    }
    return phones;
  }

  private emails(): string[] {
    const emails: string[] = [];
    for (const field of EMAIL_FIELDS) {
      const address = this.text(field, L.email);
      if (address === null) continue;
      if (isEmail(address, {})) emails.push(address);
      else this.issue(field, RowMessages.email);
    }
    return emails;
  }

  private debt(): { value: ImportDebt | null; externalId: string | null } {
    if (!DEBT_FIELDS.some((f) => this.filled(f))) return { value: null, externalId: null };
    const missing = REQUIRED_DEBT_FIELDS.filter((f) => !this.filled(f));
    for (const field of missing) this.issue(field, RowMessages.requiredForDebt);
    const externalId = this.text('debt_external_id', L.externalId);

    const totalCell = this.cell('debt_total_amount');
    const total = totalCell === null ? null : parseAmount(totalCell);
    if (totalCell !== null && (!total || total.scaled === 0n)) this.issue('debt_total_amount', RowMessages.totalAmount);
    const paidCell = this.cell('debt_paid_amount');
    const paid = parseAmount(paidCell ?? '0');
    if (!paid) this.issue('debt_paid_amount', RowMessages.paidAmount);
    else if (total && total.scaled > 0n && paid.scaled > total.scaled) this.issue('debt_paid_amount', RowMessages.paidOverTotal(paid.text, total.text));

    const currency = this.currency('debt_currency');
    const dueDate = this.date('debt_due_date');
    const issueDate = this.date('debt_issue_date');
    const description = this.text('debt_description', L.description);
    const debtType = this.text('debt_type', L.type);
    if (missing.length || !externalId || !total || !paid || !currency) return { value: null, externalId };
    return {
      value: { externalId, totalAmount: total.text, paidAmount: paid.text, currency, dueDate, issueDate, description, debtType },
      externalId,
    };
  }

  private payment(): ImportPayment | null {
    if (!PAYMENT_FIELDS.some((f) => this.filled(f))) return null;
    const missing = REQUIRED_PAYMENT_FIELDS.filter((f) => !this.filled(f));
    for (const field of missing) this.issue(field, RowMessages.requiredForPayment);
    const externalId = this.text('payment_external_id', PAYMENT_LIMITS.externalId);
    const amountCell = this.cell('payment_amount');
    const amount = amountCell === null ? null : parseAmount(amountCell);
    const amountOk = amount !== null && amount.scaled > 0n && amount.scaled <= MAX_PAYMENT_SCALED;
    if (amountCell !== null && !amountOk) this.issue('payment_amount', RowMessages.paymentAmount);
    const currency = this.currency('payment_currency');
    const date = this.date('payment_date');
    const methodCell = this.cell('payment_method');
    const method = methodCell === null || (PAYMENT_METHODS as readonly string[]).includes(methodCell) ? (methodCell as PaymentMethod | null) : this.issue('payment_method', RowMessages.paymentMethod);
    const reference = this.text('payment_reference', PAYMENT_LIMITS.reference);
    if (missing.length || !externalId || !amount || !amountOk || !date) return null;
    return { externalId, amount: amount.text, currency, date, method, reference };
  }

  /** An ISO 4217 code in capitals, or null (with an issue when the cell is not one). */
  private currency(field: ImportField): string | null {
    const currency = this.cell(field);
    if (currency === null) return null;
    if (!CURRENCY_CODE_PATTERN.test(currency)) return this.issue(field, RowMessages.currencyPattern);
    return isIso4217(currency) ? currency : this.issue(field, RowMessages.currencyUnknown(currency));
  }

  private date(field: ImportField): string | null {
    const value = this.cell(field);
    if (value === null) return null;
    if (!BATCH_DATE_PATTERN.test(value)) return this.issue(field, RowMessages.datePattern);
    return isIsoDateOrDateTime(value) ? value : this.issue(field, RowMessages.dateReal);
  }
}
