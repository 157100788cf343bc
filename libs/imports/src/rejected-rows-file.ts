import { csvRecordLine } from './spreadsheet-safety';

/** The columns the rejected-rows file adds after the file's own (docs/imports.md). */
export const REJECTION_COLUMNS = ['error_row', 'error_column', 'error_message'] as const;

/** One refused row of an import, as the importer recorded it (import_rejected_rows). */
export interface RejectedRow {
  rowNumber: number;
  /** Its cells as they were in the file. */
  source: readonly string[];
  /** The header names of the columns at fault, joined by "; " (empty: the record as a whole). */
  errorColumn: string;
  /** Every message of the row, joined by "; ". */
  errorMessage: string;
}

/**
 * A page of refused rows as a repository reads it (by primary key, after a row): at most `rows` rows
 * and, past the first, none once the page's cells and messages pass `bytes` — a row may be a whole
 * record of 1 MiB (ImportLimits.maxRecordBytes), so a count alone bounds nothing.
 */
export interface RejectedRowsPageBounds {
  rows: number;
  bytes: number;
}

/**
 * The page after `afterRow` within `bounds`, in file order (the primary key's), for pg as it is
 * (`text`, `values`): each row, and `fetched` — how many the row bound read before the byte bound
 * kept the first ones (nextRejectedRowsPage). A windowed sum over the LIMIT's rows, so the database
 * reads one page's rows, not the rest of the import's.
 */
export function rejectedRowsPageStatement(importId: string, afterRow: number, bounds: RejectedRowsPageBounds): { text: string; values: unknown[] } {
  return {
    text: `SELECT "rowNumber", source, "errorColumn", "errorMessage", fetched::int
      FROM (SELECT p.*, sum(p.size) OVER (ORDER BY p."rowNumber") AS bytes, row_number() OVER (ORDER BY p."rowNumber") AS n, count(*) OVER () AS fetched
        FROM (SELECT row_number AS "rowNumber", source, error_column AS "errorColumn", error_message AS "errorMessage",
            octet_length(array_to_string(source, '')) + octet_length(error_message) AS size
          FROM import_rejected_rows WHERE import_id = $1 AND row_number > $2 ORDER BY row_number LIMIT $3) AS p) AS q
      WHERE q.bytes <= $4 OR q.n = 1
      ORDER BY "rowNumber"`,
    values: [importId, afterRow, bounds.rows, bounds.bytes],
  };
}

/**
 * Where the next page starts, or null when this one was the last: `fetched` rows were read under the
 * row bound, `rows` of them kept under the byte bound.
 */
export function nextRejectedRowsPage(rows: readonly RejectedRow[], fetched: number, bounds: RejectedRowsPageBounds): number | null {
  const more = rows.length < fetched || fetched === bounds.rows;
  return more && rows.length ? rows[rows.length - 1].rowNumber : null;
}

/** A UTF-8 byte order mark first: spreadsheets then read accents right (the importer ignores it). */
const BOM = '\uFEFF';

/**
 * How many of the header's columns are the file's own: a rejected-rows file loaded again ends with
 * the rejection's columns, which its own rejected-rows file replaces rather than repeats.
 */
export function ownColumns(header: readonly string[]): number {
  const start = header.length - REJECTION_COLUMNS.length;
  return start >= 0 && REJECTION_COLUMNS.every((c, i) => header[start + i] === c) ? start : header.length;
}

/** The first line: the file's header as it was (matched by name when the file is loaded again), then the rejection's columns. */
export function rejectedRowsHeader(header: readonly string[], delimiter: string): string {
  return BOM + csvRecordLine([...header.slice(0, ownColumns(header)), ...REJECTION_COLUMNS], delimiter, { neutralise: false });
}

/**
 * One refused row: its cells as they were in the file — a short record padded to the header's width,
 * so the rejection's columns stand under their names; an earlier rejection's cells left out — then
 * its number, columns at fault and messages; every cell a spreadsheet would run as a formula
 * neutralised (csvRecordLine).
 */
export function rejectedRowLine(
  row: RejectedRow,
  header: readonly string[],
  delimiter: string,
): string {
  const own = ownColumns(header);
  const cells = row.source.length === header.length ? row.source.slice(0, own) : [...row.source];
  while (cells.length < own) cells.push('');
  return csvRecordLine([...cells, String(row.rowNumber), row.errorColumn, row.errorMessage], delimiter);
}
