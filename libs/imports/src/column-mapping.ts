import {
  ColumnMappingDto, IMPORT_FIELDS, ImportField, REQUIRED_DEBT_FIELDS, REQUIRED_IMPORT_FIELDS, REQUIRED_PAYMENT_FIELDS,
} from '@dc/contracts';

export interface MappingIssue {
  path: string;
  message: string;
}

/** The mapping as the importer uses it: canonical field → index of its column in each record. */
export type FieldColumns = Partial<Record<ImportField, number>>;

/**
 * Whether `mapping` can make a valid row (docs/imports.md): each targetField at most once, each
 * sourceColumn at most once, the identity fields present, the debt's external id, amount and
 * currency present as soon as any debt field is, and the payment's id, amount and date as soon as
 * any payment field is. With the file's `header`, every mapped
 * sourceColumn must also be one of its columns. Returns the issues (empty when it can).
 */
export function checkMapping(mapping: ColumnMappingDto[], header?: string[]): MappingIssue[] {
  const issues: MappingIssue[] = [];
  const fields = new Map<ImportField, number>();
  const sources = new Map<string, number>();
  mapping.forEach((m, i) => {
    const earlierSource = sources.get(m.sourceColumn);
    if (earlierSource !== undefined) {
      issues.push({ path: `columnMapping[${i}].sourceColumn`, message: `"${m.sourceColumn}" is already mapped by columnMapping[${earlierSource}]` });
    } else sources.set(m.sourceColumn, i);
    if (header && !header.includes(m.sourceColumn)) {
      issues.push({ path: `columnMapping[${i}].sourceColumn`, message: `the file has no column "${m.sourceColumn}" (its header: ${header.join(', ')})` });
    }
    if (m.targetField === null) return;
    const earlier = fields.get(m.targetField);
    if (earlier !== undefined) {
      issues.push({ path: `columnMapping[${i}].targetField`, message: `${m.targetField} is already the target of columnMapping[${earlier}]` });
    } else fields.set(m.targetField, i);
  });
  const missing = (required: readonly ImportField[]) => required.filter((f) => !fields.has(f));
  const identity = missing(REQUIRED_IMPORT_FIELDS);
  if (identity.length) {
    issues.push({ path: 'columnMapping', message: `every row needs ${REQUIRED_IMPORT_FIELDS.join(', ')}: map a column to ${identity.join(', ')}` });
  }
  if ([...fields.keys()].some((f) => f.startsWith('debt_'))) {
    const debt = missing(REQUIRED_DEBT_FIELDS);
    if (debt.length) {
      issues.push({ path: 'columnMapping', message: `a row's debt needs ${REQUIRED_DEBT_FIELDS.join(', ')}: map a column to ${debt.join(', ')}` });
    }
  }
  if ([...fields.keys()].some((f) => f.startsWith('payment_'))) {
    const payment = missing(REQUIRED_PAYMENT_FIELDS);
    if (payment.length) {
      issues.push({ path: 'columnMapping', message: `a row's payment needs ${REQUIRED_PAYMENT_FIELDS.join(', ')}: map a column to ${payment.join(', ')}` });
    }
  }
  return issues;
}

/** Canonical field → column index in the file's records, for a mapping that passed checkMapping with this header. */
export function fieldColumns(mapping: ColumnMappingDto[], header: string[]): FieldColumns {
  const columns: FieldColumns = {};
  for (const m of mapping) {
    if (m.targetField !== null && (IMPORT_FIELDS as readonly string[]).includes(m.targetField)) columns[m.targetField] = header.indexOf(m.sourceColumn);
  }
  return columns;
}
