import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { csvOptions } from './csv-dialect';
import { csvRecordLine, isFormulaLike, neutraliseCell, unneutraliseCell } from './spreadsheet-safety';

/** Fixed seed: the same strings on every run. */
const RUNS = { seed: 20260101, numRuns: 3000 };

/** The characters the rules turn on, mixed with plain text: most generated strings hit a rule. */
const tricky = fc.constantFrom(
  "'", "'", '=', '@', '+', '-', '\t', '\r', '\n', '"', ',', ';', '|', ' ', '(', ')', '.', 'e', 'E', 'A', 'x', 'ñ', '😀',
  '0', '1', '3', '4', '6', '9',
);
const trickyString = fc.string({ unit: tricky, maxLength: 24 });
/** Apostrophes, a sign and a phone or number shape: the paths through NUMBER and normalisePhone. */
const phoneish = fc
  .tuple(
    fc.constantFrom('', "'", "''", "'''"),
    fc.constantFrom('+', '-', '=', ''),
    fc.string({ unit: fc.constantFrom('0', '1', '3', '4', '6', '9', ' ', '.', '-', '(', ')', ',', 'e'), maxLength: 20 }),
  )
  .map((parts) => parts.join(''));
const anyCell = fc.oneof(trickyString, phoneish, fc.string(), fc.string({ unit: 'binary', maxLength: 16 }));

describe('isFormulaLike', () => {
  it.each([
    '=1+1', '=', '@cmd', '@', '\t=1', '\t', '\r=1', '\r',
    '-', '+', '-2+3', '+SUM(A1)', "+cmd|' /C calc'!A0", '-x', '--1', '+-1', '-1e', '-.5', '-1.', '- 1', '-12 ',
    '+34 600', '+0 600 112 233', '+34 600 11 22 33 ext', '-34 600 11 22 33',
  ])('%j is formula-like', (cell) => {
    expect(isFormulaLike(cell)).toBe(true);
  });

  it.each([
    '', 'Ana', ' =1', '\n=1', "'=1", 'a=1', '1+1', '12',
    '-12', '+12', '+3.5', '-0,75', '1e5', '-1e5', '+1E-5', '-2.5e+3', '-0',
    '+34 600 11 22 33', '+1 (555) 010-9999', '+34600112233', '+34.600.11.22.33', '+44 20 7946 0958',
  ])('%j is not formula-like', (cell) => {
    expect(isFormulaLike(cell)).toBe(false);
  });
});

describe('neutraliseCell / unneutraliseCell', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['@cmd', "'@cmd"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ['-', "'-"],
    ['-2+3', "'-2+3"],
    ['+SUM(A1)', "'+SUM(A1)"],
    // Already neutralised: one more apostrophe, so the importer's removal gives the cell back.
    ["'=1+1", "''=1+1"],
    ["''-x", "'''-x"],
    // Nothing a spreadsheet would run.
    ['', ''],
    ['Ana', 'Ana'],
    ["'", "'"],
    ["'Connor", "'Connor"],
    ['-12', '-12'],
    ["'-12", "'-12"],
    ['+34 600 11 22 33', '+34 600 11 22 33'],
    ["'+34 600 11 22 33", "'+34 600 11 22 33"],
    [' =1', ' =1'],
  ])('%j is written %j, and read back', (cell, written) => {
    expect(neutraliseCell(cell)).toBe(written);
    expect(unneutraliseCell(written)).toBe(cell);
  });

  it.each([
    ["'=Ana", '=Ana'],
    ["''=Ana", "'=Ana"],
    ["'-x", '-x'],
    ["'\t=1", '\t=1'],
    ["'Connor", "'Connor"],
    ["'+34 600 11 22 33", "'+34 600 11 22 33"],
    ["'-0,75", "'-0,75"],
    ["'", "'"],
    ["''", "''"],
    ["' =1", "' =1"],
    ['=Ana', '=Ana'],
    ['', ''],
  ])('the importer reads %j as %j', (cell, read) => {
    expect(unneutraliseCell(cell)).toBe(read);
  });

  it('round trip: unneutraliseCell(neutraliseCell(x)) === x for every string', () => {
    fc.assert(
      fc.property(anyCell, (x) => unneutraliseCell(neutraliseCell(x)) === x),
      RUNS,
    );
  });

  it('what is written is never formula-like, and differs from the cell by at most one leading apostrophe', () => {
    fc.assert(
      fc.property(anyCell, (x) => {
        const written = neutraliseCell(x);
        // A formula-like cell never starts with an apostrophe: the rest after the apostrophes decides.
        const decides = x.replace(/^'+/, '');
        return !isFormulaLike(written) && (written === x || written === `'${x}`) && (written !== x) === isFormulaLike(decides);
      }),
      RUNS,
    );
  });

  it('a cell that does not start with an apostrophe is read as is', () => {
    fc.assert(
      fc.property(anyCell, (x) => x.startsWith("'") || unneutraliseCell(x) === x),
      RUNS,
    );
  });

  it('every formula-like cell gets its apostrophe', () => {
    fc.assert(
      fc.property(anyCell, (x) => !isFormulaLike(x) || neutraliseCell(x) === `'${x}`),
      RUNS,
    );
  });
});

describe('csvRecordLine', () => {
  it('quotes cells holding the delimiter, a quote, CR or LF, or white space at an end; ends with CRLF', () => {
    expect(csvRecordLine(['a', 'b,c', 'say "hi"', 'x\ny', 'r\rs', ' pad', 'pad ', 'in side', 'x;y|z\tw'], ',')).toBe(
      'a,"b,c","say ""hi""","x\ny","r\rs"," pad","pad ",in side,x;y|z\tw\r\n',
    );
    expect(csvRecordLine(['a;b', 'c,d', '"'], ';')).toBe('"a;b";c,d;""""\r\n');
    expect(csvRecordLine(['a\tb', 'c,d;e|f', 'g'], '\t')).toBe('"a\tb"\tc,d;e|f\tg\r\n');
    expect(csvRecordLine(['a|b', 'c,d', 'e'], '|')).toBe('"a|b"|c,d|e\r\n');
  });

  it('neutralises the cells before quoting them', () => {
    expect(csvRecordLine(['=1+1', '+34 600 11 22 33', '-2+3', "'=x", '@a,b', '\t=1'], ',')).toBe(
      `'=1+1,+34 600 11 22 33,'-2+3,''=x,"'@a,b",'\t=1\r\n`,
    );
    expect(csvRecordLine(['\t=1', 'x'], '\t')).toBe(`"'\t=1"\tx\r\n`);
  });

  it('empty cells; a record of one empty cell is "" (not a blank line, which readers skip)', () => {
    expect(csvRecordLine(['', 'a', ''], ',')).toBe(',a,\r\n');
    expect(csvRecordLine(['', ''], ';')).toBe(';\r\n');
    expect(csvRecordLine([''], ',')).toBe('""\r\n');
  });

  it('refuses no cells and a delimiter that is empty or holds a quote, CR or LF', () => {
    expect(() => csvRecordLine([], ',')).toThrow(RangeError);
    for (const bad of ['', '"', '\n', '\r', ',\n']) expect(() => csvRecordLine(['a'], bad)).toThrow(RangeError);
  });

  describe.each([',', ';', '\t', '|'])('delimiter %j: csv-parse with the importer options reads the same cells back', (delimiter) => {
    const read = (text: string): string[][] => parse(text, csvOptions(delimiter)) as string[][];

    it('examples', () => {
      const cells = ['=HYPERLINK("http://x","click")', 'a,b;c\td|e', 'two\r\nlines', ' ', '', "'Connor", "'=Ana", '-0,75', '+1 (555) 010-9999', '"'];
      const [record] = read(csvRecordLine(cells, delimiter));
      expect(record.map(unneutraliseCell)).toEqual(cells);
      expect(record).toEqual(cells.map(neutraliseCell));
    });

    it('generated records, several in one file', () => {
      fc.assert(
        fc.property(fc.array(fc.array(anyCell.filter((c) => !c.startsWith('\uFEFF')), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), (records) => {
          const parsed = read(records.map((r) => csvRecordLine(r, delimiter)).join(''));
          expect(parsed.map((r) => r.map(unneutraliseCell))).toEqual(records);
        }),
        { ...RUNS, numRuns: 1000 },
      );
    });
  });
});
