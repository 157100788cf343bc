import { normalisePhone } from '@dc/contracts';

/**
 * Formula neutralisation of the CSV files people open in spreadsheets (the rejected rows of an
 * import): a cell a spreadsheet would run as a formula is written with a leading apostrophe, and
 * the importer removes that apostrophe again when the fixed file is loaded, so the round trip is
 * exact: unneutraliseCell(neutraliseCell(x)) === x for every string x. Pure: no I/O.
 */

const APOSTROPHE = 0x27; // '
const EQUALS = 0x3d; // =
const AT = 0x40; // @
const TAB = 0x09;
const CR = 0x0d;
const PLUS = 0x2b; // +
const MINUS = 0x2d; // -

/** A number: optional sign, digits with an optional decimal part (dot or comma), an optional exponent. */
const NUMBER = /^[+-]?\d+(?:[.,]\d+)?(?:[eE][+-]?\d+)?$/;

/** Whether a spreadsheet would run the cell as a formula: it starts with `=`, `@`, tab or CR, or with `+`/`-` not followed by a number or an E.164 phone. */
export function isFormulaLike(cell: string): boolean {
  switch (cell.charCodeAt(0)) {
    case EQUALS:
    case AT:
    case TAB:
    case CR:
      return true;
    case MINUS:
      return !NUMBER.test(cell);
    case PLUS:
      // The phone is the importer's own rule (normalisePhone): a number it accepts is written as is.
      return !NUMBER.test(cell) && normalisePhone(cell) === null;
    default:
      return false;
  }
}

/** How many apostrophes the cell starts with. */
function leadingApostrophes(cell: string): number {
  let i = 0;
  while (cell.charCodeAt(i) === APOSTROPHE) i += 1;
  return i;
}

/**
 * Whether the cell is formula-like or already neutralised (apostrophes before a formula-like
 * rest). A formula-like cell never starts with an apostrophe, so this is: what follows the leading
 * apostrophes is formula-like.
 */
function needsApostrophe(cell: string): boolean {
  const n = leadingApostrophes(cell);
  return isFormulaLike(n === 0 ? cell : cell.slice(n));
}

/** The cell as written to a file people open: an apostrophe before a formula-like cell, and before a cell already so neutralised (so unneutralise(neutraliseCell(x)) === x for every x). */
export function neutraliseCell(cell: string): string {
  return needsApostrophe(cell) ? `'${cell}` : cell;
}

/** Inverse, applied by the importer to every cell before its rules: removes one leading apostrophe when what follows is formula-like or itself neutralised; any other cell is returned unchanged. */
export function unneutraliseCell(cell: string): string {
  if (cell.charCodeAt(0) !== APOSTROPHE) return cell;
  return needsApostrophe(cell) ? cell.slice(1) : cell;
}

/** Quoting is needed for a quote, CR or LF anywhere, or white space at either end (a reader may trim it). */
const NEEDS_QUOTES = /["\r\n]|^\s|\s$/;

function csvCell(cell: string, delimiter: string): string {
  return cell.includes(delimiter) || NEEDS_QUOTES.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/**
 * One CSV record (RFC 4180): cells joined by `delimiter`, a cell quoted ("" for ") when it holds
 * the delimiter, a quote, CR or LF, or has leading/trailing white space; ends with CRLF. Cells are
 * passed through neutraliseCell first (not with `neutralise: false`: a header, matched by name). A record of one empty cell is written `""` (a blank line
 * is not a record to readers that skip blank lines, as the importer does). Throws RangeError for
 * no cells, or a delimiter that is empty or holds a quote, CR or LF.
 */
export function csvRecordLine(cells: readonly string[], delimiter: string, { neutralise = true }: { neutralise?: boolean } = {}): string {
  if (delimiter === '' || /["\r\n]/.test(delimiter)) throw new RangeError(`invalid CSV delimiter ${JSON.stringify(delimiter)}`);
  if (cells.length === 0) throw new RangeError('a CSV record has at least one cell');
  if (cells.length === 1 && cells[0] === '') return '""\r\n';
  let line = '';
  for (let i = 0; i < cells.length; i += 1) {
    if (i > 0) line += delimiter;
    line += csvCell(neutralise ? neutraliseCell(cells[i]) : cells[i], delimiter);
  }
  return `${line}\r\n`;
}
