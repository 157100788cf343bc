/**
 * The canonical importer fields: the closed list of `columnMapping[].targetField` values
 * (docs/imports.md). One CSV row is one debtor with at most one debt and one payment; rows that
 * share a debtor (same document) add debts to it. Every field is text in the file; the rules are the debtor
 * batch's, applied per row.
 */
export const IMPORT_FIELDS = [
  // Identity (the document identifies the debtor in update, reconcile and within one file)
  'debtor_external_id',
  'identity_first_name',
  'identity_last_name',
  'identity_document_type',
  'identity_document_number',
  'identity_entity_type',
  // Contact
  'contact_name',
  'phone_1',
  'phone_2',
  'phone_3',
  'email_1',
  'email_2',
  'address_street',
  'address_city',
  'address_state',
  'address_postal_code',
  'address_country',
  // Compliance flags: true/false, yes/no, 1/0 (any case); empty keeps the default (new) or the stored value
  'compliance_opt_out',
  'compliance_consent_to_call',
  'compliance_consent_to_whatsapp',
  'compliance_consent_to_email',
  'compliance_consent_to_sms',
  // One debt per row
  'debt_external_id',
  'debt_total_amount',
  'debt_paid_amount',
  'debt_currency',
  'debt_due_date',
  'debt_issue_date',
  'debt_description',
  'debt_type',
  // At most one payment per row, registered against the row's debt (or its debtor without one)
  'payment_external_id',
  'payment_amount',
  'payment_currency',
  'payment_date',
  'payment_method',
  'payment_reference',
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** Fields every mapping must name: without them no row can make a valid debtor. */
export const REQUIRED_IMPORT_FIELDS: readonly ImportField[] = ['identity_first_name', 'identity_document_type', 'identity_document_number'];

/** When any debt_* field is mapped, these must be too: a debt needs its external id, amount and currency. */
export const REQUIRED_DEBT_FIELDS: readonly ImportField[] = ['debt_external_id', 'debt_total_amount', 'debt_currency'];

/** When any payment_* field is mapped, these must be too: a payment needs the file's id for it, its amount and date. */
export const REQUIRED_PAYMENT_FIELDS: readonly ImportField[] = ['payment_external_id', 'payment_amount', 'payment_date'];

export const IMPORT_MODES = ['add', 'update', 'reconcile', 'replace'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

/** queued → processing → completed | failed (docs/imports.md). */
export const IMPORT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export const ImportLimits = {
  /** Mapping entries (a CSV may have more columns; unmapped columns are ignored). */
  maxMappings: 200,
  /** Length of a header name and of a storage key. */
  sourceColumn: 256,
  storageKey: 512,
  /** errorDetails holds at most this many lines; `errors` is the total. */
  maxErrorDetails: 100,
  /** Bytes of one record of the file (all its fields): a longer one, an unclosed quote for example, fails the import. */
  maxRecordBytes: 1024 * 1024,
  /** Columns of the file's header. */
  maxColumns: 1_000,
  /** Bytes of the header line. */
  maxHeaderBytes: 64 * 1024,
  /** Data rows a preview reads (and shows) from the start of the file. */
  previewRows: 10,
} as const;
