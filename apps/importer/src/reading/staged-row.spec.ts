import { RowRules } from '@dc/imports';
import { Bit } from '../merging/fold-bits';
import { copyLine, copyText, copyValue } from './copy-text';
import { STAGING_COLUMNS, stagedRowLine } from './staged-row';

/** A COPY text line back into its values (the inverse of copyLine, for these tests). */
function parseLine(line: string): (string | null)[] {
  expect(line.endsWith('\n')).toBe(true);
  return line
    .slice(0, -1)
    .split('\t')
    .map((v) => (v === '\\N' ? null : v.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c] ?? c)));
}

describe('COPY text encoding', () => {
  it('escapes backslash, tab, newline and carriage return; NULL is \\N', () => {
    expect(copyText('plain')).toBe('plain');
    expect(copyText('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyValue(null)).toBe('\\N');
    expect(copyValue(undefined)).toBe('\\N');
    expect(copyValue(true)).toBe('t');
    expect(copyValue(false)).toBe('f');
    expect(copyValue(12)).toBe('12');
    expect(copyValue('\\N')).toBe('\\\\N');
  });

  it('arrays are array literals with quoted, escaped elements', () => {
    expect(copyValue(['row 2: A: is required', 'say "hi"\\'])).toBe('{"row 2: A: is required","say \\\\"hi\\\\"\\\\\\\\"}');
    expect(copyLine([1, null, ['x']])).toBe('1\t\\N\t{"x"}\n');
  });
});

describe('stagedRowLine', () => {
  const header = ['id', 'name', 'doc_type', 'doc', 'phone', 'phone2', 'email', 'debt', 'total', 'paid', 'currency', 'note'];
  const rules = new RowRules(
    {
      debtor_external_id: 0, identity_first_name: 1, identity_document_type: 2, identity_document_number: 3, phone_1: 4, phone_2: 5,
      email_1: 6, debt_external_id: 7, debt_total_amount: 8, debt_paid_amount: 9, debt_currency: 10, debt_description: 11,
    },
    header.length,
  );
  const columnOf = (field: string) => header[['debtor_external_id', 'identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1', 'phone_2', 'email_1', 'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency', 'debt_description'].indexOf(field)];
  const at = (values: (string | null)[], column: (typeof STAGING_COLUMNS)[number]) => values[STAGING_COLUMNS.indexOf(column)];

  it('a valid row: one value per staging column, canonical, with its bits and ids', () => {
    const record = ['C1', 'Ana\tMaría', 'national_id', 'X1', '', '+34 600 11 22 33', 'a@example.com', 'D1', '10.50', '', 'EUR', 'line 1\nline 2'];
    const line = stagedRowLine('imp_1', 7, rules.check(record), columnOf, record);
    const values = parseLine(line);
    expect(values).toHaveLength(STAGING_COLUMNS.length);
    expect(at(values, 'import_id')).toBe('imp_1');
    expect(at(values, 'row_number')).toBe('7');
    expect(at(values, 'error_details')).toBeNull();
    expect(at(values, 'identity_first_name')).toBe('Ana\tMaría');
    // Phones in order, empty cells left out: phone_2's number is the row's first.
    expect([at(values, 'phone_1'), at(values, 'phone_1_e164'), at(values, 'phone_2')]).toEqual(['+34 600 11 22 33', '+34600112233', null]);
    expect([at(values, 'debt_total_amount'), at(values, 'debt_paid_amount'), at(values, 'debt_description')]).toEqual(['10.50', '0', 'line 1\nline 2']);
    expect(Number(at(values, 'present'))).toBe(Bit.identity | Bit.externalId | Bit.phones | Bit.emails | Bit.snapshot | Bit.description);
    expect(at(values, 'new_debtor_id')).toMatch(/^dbt_[0-9A-Z]{26}$/);
    expect(at(values, 'new_debt_id')).toMatch(/^debt_[0-9A-Z]{26}$/);
    expect(at(values, 'phone_1_id')).toMatch(/^phn_/);
    expect(at(values, 'phone_2_id')).toBeNull();
    expect(at(values, 'email_1_id')).toMatch(/^eml_/);
    // The record as it was, for the rejected-rows file should the merge refuse it.
    expect(at(values, 'source')).toBe('{"C1","Ana\tMaría","national_id","X1","","+34 600 11 22 33","a@example.com","D1","10.50","","EUR","line 1\nline 2"}');
    expect([at(values, 'error_column'), at(values, 'error_message')]).toEqual([null, null]);
  });

  it('a refused row: its errorDetails lines, its valid debt external id, nothing else', () => {
    const record = ['C1', '', 'national_id', 'X1', 'nope', '', '', 'D9', '0', '', 'EUR', ''];
    const values = parseLine(stagedRowLine('imp_1', 9, rules.check(record), columnOf, record));
    expect(values).toHaveLength(STAGING_COLUMNS.length);
    expect(at(values, 'error_details')).toBe(
      '{"row 9: name: is required","row 9: phone: \\"nope\\" is not an E.164 number (+, country code, 9 to 15 digits in total)","row 9: total: must be above 0 with at most 4 decimals and 15 integer digits (a dot separates the decimals)"}',
    );
    expect(at(values, 'debt_external_id')).toBe('D9');
    expect(at(values, 'present')).toBe('0');
    expect(at(values, 'source')).toBe('{"C1","","national_id","X1","nope","","","D9","0","","EUR",""}');
    expect(at(values, 'error_column')).toBe('name; phone; total');
    expect(at(values, 'error_message')).toBe(
      'name: is required; phone: "nope" is not an E.164 number (+, country code, 9 to 15 digits in total); total: must be above 0 with at most 4 decimals and 15 integer digits (a dot separates the decimals)',
    );
    expect(values.filter((v) => v !== null)).toHaveLength(8);
  });

  it('a refused record holding NUL keeps its cells, the NUL as U+FFFD (a text value cannot hold it)', () => {
    const record = ['C1', 'Ana\u0000', 'national_id', 'X1', '', '', '', '', '', '', '', ''];
    const values = parseLine(stagedRowLine('imp_1', 4, rules.check(record), columnOf, record));
    expect(at(values, 'source')).toBe('{"C1","Ana\uFFFD","national_id","X1","","","","","","","",""}');
    expect(at(values, 'error_column')).toBe('name');
  });

  it('a record of the wrong width is one line for the row', () => {
    const values = parseLine(stagedRowLine('imp_1', 3, rules.check(['only', 'three', 'fields']), columnOf, ['only', 'three', 'fields']));
    expect(at(values, 'error_details')).toBe('{"row 3: the record has 3 fields; the header has 12"}');
    expect([at(values, 'error_column'), at(values, 'error_message')]).toEqual(['', 'the record has 3 fields; the header has 12']);
  });
});
