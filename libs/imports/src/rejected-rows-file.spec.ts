import { parse } from 'csv-parse/sync';
import { csvOptions } from './csv-dialect';
import { unneutraliseCell } from './spreadsheet-safety';
import { nextRejectedRowsPage, rejectedRowLine, rejectedRowsHeader } from './rejected-rows-file';

describe('the rejected-rows file', () => {
  it('the header as it was, a BOM first, then the rejection columns, in the file\'s delimiter', () => {
    expect(rejectedRowsHeader(['Nombre', '=Total', 'Tipo; doc'], ';')).toBe('\uFEFFNombre;=Total;"Tipo; doc";error_row;error_column;error_message\r\n');
  });

  it('a row: its cells as they were, formulas neutralised, padded when short, then why', () => {
    const line = rejectedRowLine({ rowNumber: 7, source: ['=HYPERLINK("x")', '-12,5', '+34 600 11 22 33'], errorColumn: 'Importe', errorMessage: 'Importe: must be above 0' }, ['a', 'b', 'c', 'd', 'e'], ',');
    expect(line).toBe('"\'=HYPERLINK(""x"")","-12,5",+34 600 11 22 33,,,7,Importe,Importe: must be above 0\r\n');
    // Read back as the importer reads it, the cells are the file's.
    const [cells] = parse(rejectedRowsHeader(['a', 'b', 'c', 'd', 'e'], ',') + line, csvOptions(',')).slice(1) as string[][];
    expect(cells.map(unneutraliseCell)).toEqual(['=HYPERLINK("x")', '-12,5', '+34 600 11 22 33', '', '', '7', 'Importe', 'Importe: must be above 0']);
  });

  it('a row wider than the header keeps its extra cells, before the rejection', () => {
    expect(rejectedRowLine({ rowNumber: 3, source: ['a', 'b', 'c'], errorColumn: '', errorMessage: 'the record has 3 fields; the header has 2' }, ['x', 'y'], '\t'))
      .toBe('a\tb\tc\t3\t\tthe record has 3 fields; the header has 2\r\n');
  });

  it('a rejected-rows file loaded again: its rejection columns replaced, not repeated', () => {
    const header = ['Nombre', 'DNI', 'error_row', 'error_column', 'error_message'];
    expect(rejectedRowsHeader(header, ',')).toBe('\uFEFFNombre,DNI,error_row,error_column,error_message\r\n');
    expect(rejectedRowLine({ rowNumber: 2, source: ['Ana', '', '7', 'DNI', 'old'], errorColumn: 'DNI', errorMessage: 'DNI: is required' }, header, ','))
      .toBe('Ana,,2,DNI,DNI: is required\r\n');
    // A header that only ends like one keeps its columns.
    expect(rejectedRowsHeader(['error_column', 'error_message'], ',')).toBe('\uFEFFerror_column,error_message,error_row,error_column,error_message\r\n');
  });

  describe('paging the refused rows', () => {
    const bounds = { rows: 3, bytes: 1_000 };
    const rows = (...numbers: number[]) => numbers.map((rowNumber) => ({ rowNumber, source: ['x'], errorColumn: 'a', errorMessage: 'a: bad' }));

    it('goes on after the last row kept when the row bound was reached', () => {
      expect(nextRejectedRowsPage(rows(2, 5, 9), 3, bounds)).toBe(9);
    });

    it('goes on after the last row kept when the byte bound left some of those read out', () => {
      expect(nextRejectedRowsPage(rows(2), 2, bounds)).toBe(2);
    });

    it('ends when fewer than the row bound were read and all were kept, or none was left', () => {
      expect(nextRejectedRowsPage(rows(2, 5), 2, bounds)).toBeNull();
      expect(nextRejectedRowsPage([], 0, bounds)).toBeNull();
    });
  });
});
