import {
  COUNTRY_CODE_PATTERN, CURRENCY_CODE_PATTERN, IMPORT_FIELDS, ImportField, ImportLimits, ImportMappingSuggestion, isIso4217, isIsoDateOrDateTime,
  MappingSuggestionReason, normalisePhone, REQUIRED_DEBT_FIELDS, REQUIRED_PAYMENT_FIELDS,
} from '@dc/contracts';
import { isEmail } from 'class-validator';

/**
 * Suggests a columnMapping for a CSV's header from the column names, a few sample rows and the
 * portfolio's previous mapping. Pure: no I/O. The suggestion is a starting point for a person;
 * its non-null pairs pass checkMapping with the header unless the file has no column for a
 * required identity field (then no mapping can).
 */

/** One column's suggestion: the API's item (libs/contracts). */
export type MappingSuggestion = ImportMappingSuggestion;

export interface SuggestInput {
  /** column names as in the file */
  header: string[];
  /** up to 10 data rows as read (cells untrimmed) */
  sampleRows: string[][];
  /** the columnMapping of the last completed import of this portfolio, if any */
  previousMapping?: readonly { sourceColumn: string; targetField: ImportField | null }[] | null;
}

/**
 * Known column names of each field, English and Spanish. Compared after normalisation (case,
 * accents, punctuation and the words de/del/la/el/of/the don't count), so "TELEFONO" and
 * "tipo_de_documento" match "Teléfono" and "Tipo de documento". A field's own name ("debt_currency",
 * "Phone 2", "Payment date", "Debt type") always matches as exact_name and is not listed here.
 * Extend freely; a name must not be listed for two fields (the spec checks every name).
 */
export const MAPPING_SYNONYMS: { readonly [F in ImportField]?: readonly string[] } = {
  debtor_external_id: [
    'Cliente', 'Código cliente', 'ID cliente', 'Nº cliente', 'ID deudor', 'Customer id', 'Customer number', 'Client', 'Client id', 'Customer', 'Debtor id',
  ],
  identity_first_name: ['Nombre', 'First name', 'Name', 'Given name'],
  identity_last_name: ['Apellidos', 'Apellido', 'Last name', 'Surname', 'Family name'],
  identity_document_type: ['Tipo Doc', 'Tipo de documento', 'Tipo identificación', 'Document type', 'Doc type', 'ID type'],
  identity_document_number: [
    'DNI', 'NIF', 'NIE', 'CIF', 'DNI/NIE', 'Documento', 'Número de documento', 'Document number', 'Document', 'Doc', 'ID number',
  ],
  identity_entity_type: ['Tipo persona', 'Tipo entidad', 'Entity type', 'Person type'],
  contact_name: ['Contacto', 'Persona de contacto', 'Contact', 'Contact person'],
  phone_1: ['Teléfono', 'Teléfono 1', 'Móvil', 'Móvil 1', 'Celular', 'Tel', 'Telf', 'Tfno', 'Phone', 'Phone number', 'Mobile', 'Mobile 1', 'Cell', 'Cell phone'],
  phone_2: ['Teléfono 2', 'Móvil 2', 'Tel 2', 'Teléfono fijo', 'Fijo', 'Mobile 2', 'Landline', 'Home phone', 'Work phone'],
  phone_3: ['Teléfono 3', 'Móvil 3', 'Tel 3', 'Mobile 3'],
  email_1: ['Email', 'E-mail', 'Correo', 'Correo electrónico', 'Mail', 'Email address'],
  email_2: ['E-mail 2', 'Correo 2', 'Correo electrónico 2', 'Mail 2'],
  address_street: ['Dirección', 'Domicilio', 'Calle', 'Address', 'Street', 'Street address'],
  address_city: ['Ciudad', 'Localidad', 'Población', 'Municipio', 'City', 'Town'],
  address_state: ['Provincia', 'Región', 'State', 'Province', 'County'],
  address_postal_code: ['CP', 'Código postal', 'Postal code', 'Postcode', 'Zip', 'Zip code'],
  address_country: ['País', 'Country'],
  compliance_opt_out: ['Baja', 'No molestar', 'Opt out', 'Do not contact'],
  compliance_consent_to_call: ['Consentimiento llamadas', 'Consent to call'],
  compliance_consent_to_whatsapp: ['Consentimiento WhatsApp', 'Consent to WhatsApp'],
  compliance_consent_to_email: ['Consentimiento email', 'Consent to email'],
  compliance_consent_to_sms: ['Consentimiento SMS', 'Consent to SMS'],
  debt_external_id: ['Referencia', 'Ref', 'Reference', 'Invoice', 'Invoice number', 'Factura', 'Nº factura', 'ID deuda', 'Debt id'],
  debt_total_amount: ['Importe', 'Importe total', 'Importe deuda', 'Deuda', 'Amount', 'Total', 'Total amount', 'Debt amount', 'Balance', 'Saldo'],
  debt_paid_amount: ['Pagado', 'Importe pagado', 'Paid', 'Paid amount', 'Amount paid'],
  debt_currency: ['Moneda', 'Divisa', 'Currency'],
  debt_due_date: ['Vencimiento', 'Fecha de vencimiento', 'Fecha vto', 'Due date', 'Due'],
  debt_issue_date: ['Fecha de emisión', 'Emisión', 'Fecha factura', 'Issue date', 'Invoice date'],
  debt_description: ['Concepto', 'Descripción', 'Detalle', 'Description'],
  debt_type: ['Tipo de deuda'],
  payment_external_id: ['ID pago', 'Payment id'],
  payment_amount: ['Importe pago'],
  payment_currency: ['Moneda pago', 'Divisa pago'],
  payment_date: ['Pago', 'Fecha de pago', 'Fecha de cobro'],
  payment_method: ['Método de pago', 'Forma de pago', 'Medio de pago'],
  payment_reference: ['Referencia de pago'],
};

const CONFIDENCE = { previous_import: 0.95, exact_name: 1, synonym: 0.9 } as const;
/** Rows looked at, and the count of matching values at which a value pattern reaches its top confidence (0.6 for one → 0.8). */
const MAX_SAMPLE_ROWS = 10;
const VALUE_SATURATION = 5;

/** Words that don't change what a column is ("Fecha de pago" is "Fecha pago"). */
const FILLERS = new Set(['de', 'del', 'la', 'el', 'of', 'the']);
/** Spanish spellings of "number": "Nº factura", "N° factura", "Núm. factura" and "Número de factura" are one name. */
const NUMBER_WORDS = new Set(['nº', 'n', 'num', 'nro', 'numero']);

/** Lowercase, accents stripped, any run of non-letters/digits (_ - . / spaces…) one space, fillers dropped. */
function normaliseName(name: string): string {
  const words = name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const meaningful = words.filter((w) => !FILLERS.has(w)).map((w) => (NUMBER_WORDS.has(w) ? 'numero' : w));
  return (meaningful.length ? meaningful : words).join(' ');
}

const EXACT_NAMES = new Map<string, ImportField>(IMPORT_FIELDS.map((f) => [normaliseName(f), f]));
const SYNONYMS = new Map<string, ImportField>(
  Object.entries(MAPPING_SYNONYMS).flatMap(([field, names]) => (names ?? []).map((n): [string, ImportField] => [normaliseName(n), field as ImportField])),
);

/** Numbered fields: a second phone-like column takes the next free phone rather than nothing. */
const FAMILIES: readonly (readonly ImportField[])[] = [['phone_1', 'phone_2', 'phone_3'], ['email_1', 'email_2']];
function withFollowers(field: ImportField): readonly ImportField[] {
  const family = FAMILIES.find((f) => f.includes(field));
  return family ? family.slice(family.indexOf(field)) : [field];
}

/**
 * What a column's values can say on their own. Amounts, names and other free text are too
 * ambiguous to guess. Each test is the importer's own rule for the field (row-rules.ts).
 */
const VALUE_PATTERNS: readonly { what: string; test: (v: string) => boolean; fields: readonly ImportField[] }[] = [
  { what: 'an E.164 phone number', test: (v) => v.startsWith('+') && normalisePhone(v) !== null, fields: ['phone_1', 'phone_2', 'phone_3'] },
  { what: 'an email address', test: (v) => isEmail(v, {}), fields: ['email_1', 'email_2'] },
  { what: 'an ISO 4217 currency code', test: (v) => CURRENCY_CODE_PATTERN.test(v) && isIso4217(v), fields: ['debt_currency'] },
  { what: 'an ISO 8601 date or date-time', test: (v) => isIsoDateOrDateTime(v), fields: ['debt_due_date', 'debt_issue_date'] },
  { what: 'a country code (two capital letters)', test: (v) => COUNTRY_CODE_PATTERN.test(v), fields: ['address_country'] },
];

/** checkMapping's groups: any field of one needs all its required fields. */
const GROUPS = [
  { prefix: 'debt_', required: REQUIRED_DEBT_FIELDS, what: 'a debt' },
  { prefix: 'payment_', required: REQUIRED_PAYMENT_FIELDS, what: 'a payment' },
] as const;

interface Candidate {
  field: ImportField;
  confidence: number;
  code: MappingSuggestionReason;
  why: string;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Why a mapping cannot name this column at all (the importer refuses such a header), or null. */
function unusableName(column: string, index: number, header: string[]): string | null {
  if (column.trim() === '') return 'the column has no name: a mapping cannot name it (and the importer refuses a header with an unnamed column)';
  if (column.length > ImportLimits.sourceColumn) return `the column name is longer than ${ImportLimits.sourceColumn} characters, the limit of a sourceColumn`;
  if (header.indexOf(column) !== index) return `the header names "${column}" twice: only one column of a name can be mapped (and the importer refuses such a header)`;
  return null;
}

/** The column's candidates, best first: previous import > exact name > synonym; values only when no name matched. */
function candidatesOf(column: string, index: number, input: SuggestInput, previous: ReadonlyMap<string, ImportField>): Candidate[] {
  const list: Candidate[] = [];
  const add = (fields: readonly ImportField[], confidence: number, code: MappingSuggestionReason, why: string) => {
    for (const field of fields) if (!list.some((c) => c.field === field)) list.push({ field, confidence: round2(confidence), code, why });
  };
  const before = previous.get(column);
  if (before) add(withFollowers(before), CONFIDENCE.previous_import, 'previous_import', `previous import: "${column}" was mapped to ${before}`);
  const name = normaliseName(column);
  const exact = EXACT_NAMES.get(name);
  const synonym = SYNONYMS.get(name);
  // An exact name is exact: no shifting to a following phone/email.
  if (exact) add([exact], CONFIDENCE.exact_name, 'exact_name', `exact name: "${column}" is the name of ${exact}`);
  else if (synonym) add(withFollowers(synonym), CONFIDENCE.synonym, 'synonym', `synonym: "${column}" is a known name of ${synonym}`);
  if (list.length) return list;

  // Cells are trimmed and empty ones are absent, as the importer reads them.
  const values = input.sampleRows.slice(0, MAX_SAMPLE_ROWS).map((row) => (row[index] ?? '').trim()).filter((v) => v !== '');
  const pattern = values.length ? VALUE_PATTERNS.find((p) => values.every(p.test)) : undefined;
  if (pattern) {
    const confidence = 0.6 + (0.2 * (Math.min(values.length, VALUE_SATURATION) - 1)) / (VALUE_SATURATION - 1);
    const why = `value pattern: every non-empty sample value of "${column}" (${values.length}) is ${pattern.what}`;
    add(pattern.fields, confidence, 'value_pattern', why);
  }
  return list;
}

/**
 * Gives each field to at most one column: the best proposal (highest confidence, then earliest
 * column) is taken first; a column whose candidate is taken or excluded tries its next one.
 */
function assign(candidates: Candidate[][], header: string[], excluded: ReadonlyMap<ImportField, string>) {
  const next = candidates.map(() => 0);
  const chosen: (Candidate | null)[] = candidates.map(() => null);
  const notes: string[][] = candidates.map(() => []);
  const owner = new Map<ImportField, number>();
  for (;;) {
    let best = -1;
    candidates.forEach((list, i) => {
      if (chosen[i] || next[i] >= list.length) return;
      if (best < 0 || list[next[i]].confidence > candidates[best][next[best]].confidence) best = i;
    });
    if (best < 0) return { chosen, notes };
    const c = candidates[best][next[best]++];
    const holder = owner.get(c.field);
    const blocked = excluded.get(c.field) ?? (holder !== undefined ? `${c.field} is suggested for "${header[holder]}"` : null);
    if (blocked === null) {
      chosen[best] = c;
      owner.set(c.field, best);
    } else if (!notes[best].includes(blocked)) notes[best].push(blocked);
  }
}

/** One suggestion per header column, in header order (see the rules in docs and MAPPING_SYNONYMS). */
export function suggestMapping(input: SuggestInput): MappingSuggestion[] {
  const { header } = input;
  const previous = new Map<string, ImportField>();
  for (const m of input.previousMapping ?? []) {
    // A stored mapping may name a field that no longer exists: ignore it.
    if (m.targetField !== null && (IMPORT_FIELDS as readonly string[]).includes(m.targetField) && !previous.has(m.sourceColumn)) {
      previous.set(m.sourceColumn, m.targetField);
    }
  }
  const unusable = header.map((column, i) => unusableName(column, i, header));
  const candidates = header.map((column, i) => (unusable[i] === null ? candidatesOf(column, i, input, previous) : []));

  // A debt (payment) field without all the required ones fails checkMapping: leave the whole group
  // out and assign again, so the columns it held may take their next candidates.
  const excluded = new Map<ImportField, string>();
  for (;;) {
    const { chosen, notes } = assign(candidates, header, excluded);
    const taken = new Set(chosen.flatMap((c) => (c ? [c.field] : [])));
    const incomplete = GROUPS.filter((g) => [...taken].some((f) => f.startsWith(g.prefix)) && g.required.some((f) => !taken.has(f)));
    for (const g of incomplete) {
      const missing = g.required.filter((f) => !taken.has(f));
      const note = `${g.what} needs ${g.required.join(', ')}: no column is suggested for ${missing.join(', ')}`;
      for (const f of IMPORT_FIELDS) if (f.startsWith(g.prefix)) excluded.set(f, note);
    }
    if (incomplete.length) continue;

    return header.map((sourceColumn, i): MappingSuggestion => {
      const c = chosen[i];
      if (c) return { sourceColumn, targetField: c.field, confidence: c.confidence, reason: [c.why, ...notes[i]].join('; '), reasonCode: c.code };
      // Considered but not suggested: what it could have been, then why not.
      const why = unusable[i] ?? (candidates[i].length ? [candidates[i][0].why, ...notes[i]].join('; ') : null);
      return { sourceColumn, targetField: null, confidence: 0, reason: why, reasonCode: null };
    });
  }
}
