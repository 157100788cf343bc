import { csvOptions } from '@dc/imports';
import { createTenant, csvLine, getRejectedRows, identityMapping, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ImportClient, newPortfolio, startImportStack } from './import-kit';

/**
 * GET /v1/imports/{id}/rejected-rows (docs/imports.md, "The rejected rows"): every refused row as it
 * was in the file, with why, in the file's delimiter, formulas neutralised; fixed and uploaded again
 * as it is, it loads exactly those rows.
 */
describe('imports: the rejected rows as a file to fix and load again', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let other: Tenant;
  let client: ImportClient;

  const requestId = (res: { headers: Headers }) => res.headers.get('x-request-id');
  const HEADER = [
    'debtor_external_id', 'identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1', 'email_1', 'address_country',
    'compliance_opt_out', 'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency', 'debt_due_date', 'payment_external_id',
    'payment_amount', 'payment_date',
  ];
  const file = (rows: string[][]) => `${[HEADER, ...rows].map((r) => csvLine(r, ';')).join('\r\n')}\r\n`;
  const ok = (i: number, over: Record<string, string> = {}) =>
    HEADER.map((h) => over[h] ?? {
      debtor_external_id: `c${i}`, identity_first_name: `Name ${i}`, identity_document_type: 'dni', identity_document_number: `D${i}`,
      phone_1: '+34 600 000 000', email_1: `n${i}@example.com`, address_country: 'ES', compliance_opt_out: 'no', debt_external_id: `debt-${i}`,
      debt_total_amount: '100', debt_paid_amount: '0', debt_currency: 'EUR', debt_due_date: '2026-12-31', payment_external_id: '',
      payment_amount: '', payment_date: '',
    }[h] ?? '');

  beforeAll(async () => {
    ({ stack, operator, tenant, client } = await startImportStack());
    other = await createTenant(operator);
  }, 60_000);
  afterAll(() => stack?.stop());

  it('every rule a row can break: all of them listed as they were, fixed, loaded again, exactly those rows load', async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    // d-owned and c900 are live under another debtor, c901 was erased: rows of new debtors naming them are refused at the merge.
    expect((await client.load(pf, file([ok(900, { debt_external_id: 'd-owned' }), ok(901)]), identityMapping(HEADER), 'update')).created).toBe(2);
    await operator.expect(200, 'POST', `/debtors/${(await client.debtors(pf)).find((d) => d.externalId === 'c901')!.id}/erase`);

    const bad: [string, Record<string, string>][] = [
      ['first name required', { identity_first_name: '' }],
      ['phone', { phone_1: '600 11 22', identity_first_name: '=HYPERLINK("http://evil")' }],
      ['email', { email_1: 'not-an-email', identity_first_name: '@SUM(1+1)' }],
      ['country', { address_country: 'Spain' }],
      ['boolean', { compliance_opt_out: 'maybe' }],
      ['amount', { debt_total_amount: '1.000,50' }],
      ['paid above total', { debt_paid_amount: '200' }],
      ['currency', { debt_currency: 'euro' }],
      ['date', { debt_due_date: '2026-02-30' }],
      ['payment incomplete', { payment_external_id: 'p-1' }],
      ['debt of another debtor', { debt_external_id: 'd-owned', identity_first_name: '-cmd' }],
      ['external id of another debtor', { debtor_external_id: 'c900' }],
      ['erased subject', { debtor_external_id: 'c901' }],
      ['several at once', { phone_1: 'x', debt_currency: 'eur' }], // c113
    ];
    const rows: string[][] = [];
    for (let i = 0; i < 30; i += 1) rows.push(ok(i));
    bad.forEach(([, over], k) => rows.splice(2 + k * 2, 0, ok(100 + k, over)));
    rows.splice(5, 0, ['only', 'three', 'fields']); // row 7
    const first = await client.load(pf, file(rows), identityMapping(HEADER), 'update');
    const listedBefore = (await client.debtors(pf)).length;
    expect({ status: first.status, created: first.created, errors: first.errors }).toEqual({ status: 'completed', created: 30, errors: bad.length + 1 });

    const res = await getRejectedRows(stack.publicUrl, tenant.key, first.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${first.id}-rejected-rows.csv"`);
    expect(res.text.startsWith(`\uFEFF${[...HEADER, 'error_row', 'error_column', 'error_message'].join(';')}\r\n`)).toBe(true);
    const records = parse(res.text, { ...csvOptions(';') }) as string[][];
    const [header, ...rejected] = records;
    expect(header).toEqual([...HEADER, 'error_row', 'error_column', 'error_message']);
    // Every refused row, in file order, as it was (formulas neutralised), with its number and why.
    const rowNumbers = rejected.map((r) => Number(r[HEADER.length]));
    const expectedNumbers = rows.map((r, i) => [r, i + 2] as const).filter(([r]) => r.length !== HEADER.length || !/^c\d+$/.test(r[0]) || Number(r[0].slice(1)) >= 100).map(([, n]) => n);
    expect(rowNumbers).toEqual(expectedNumbers);
    const byName = new Map(rejected.map((r) => [r[0], r]));
    expect(byName.get('c101')!.slice(0, 2)).toEqual(['c101', '\'=HYPERLINK("http://evil")']);
    expect(byName.get('c101')!.slice(HEADER.length + 1)).toEqual(['phone_1', 'phone_1: "600 11 22" is not an E.164 number (+, country code, 9 to 15 digits in total)']);
    expect(byName.get('c102')![1]).toBe("'@SUM(1+1)");
    expect(byName.get('c110')![1]).toBe("'-cmd");
    expect(byName.get('c110')!.slice(HEADER.length + 1)).toEqual(['debt_external_id', expect.stringMatching(/^debt_external_id: debt d-owned belongs to another debtor.*\(debt_external_id_in_use\)$/)]);
    expect(byName.get('c900')![HEADER.length + 2]).toMatch(/^debtor_external_id: c900 is already used by another debtor/);
    expect(byName.get('c901')![HEADER.length + 2]).toMatch(/^debtor_external_id: .*\(erased_subject\)$/);
    expect(byName.get('c113')![HEADER.length + 1]).toBe('phone_1; debt_currency');
    expect(byName.get('c113')![HEADER.length + 2]).toMatch(/^phone_1: .+; debt_currency: /);
    expect(byName.get('only')).toEqual(['only', 'three', 'fields', ...new Array(HEADER.length - 3).fill(''), '7', '', 'the record has 3 fields; the header has 16']);

    // Fixed in place: each bad cell made good, the row of the wrong width rewritten; the rest as it was.
    const fixes: Record<string, string> = {
      identity_first_name: 'Fixed', phone_1: '+34 600 111 222', email_1: 'fixed@example.com', address_country: 'ES', compliance_opt_out: 'no',
      debt_total_amount: '1000.50', debt_paid_amount: '0', debt_currency: 'EUR', debt_due_date: '2026-02-28', payment_amount: '5', payment_date: '2026-01-01',
    };
    const fixed = [header, ...rejected.map((r) => {
      if (r[0] === 'only') return [...ok(200), '7', '', 'fixed'];
      const cells = [...r];
      for (const column of r[HEADER.length + 1].split('; ').filter(Boolean)) cells[HEADER.indexOf(column)] = fixes[column] ?? `${cells[HEADER.indexOf(column)]}-new`;
      if (r[1] === '') cells[1] = 'Fixed';
      return cells;
    })];
    // Uploaded as it is: apostrophes and the three added columns included (unmapped).
    const again = await client.load(pf, `\uFEFF${fixed.map((r) => csvLine(r, ';')).join('\r\n')}\r\n`, identityMapping(HEADER), 'update');
    expect({ status: again.status, created: again.created, updated: again.updated, errors: again.errors, errorDetails: again.errorDetails })
      .toEqual({ status: 'completed', created: bad.length + 1, updated: 0, errors: 0, errorDetails: [] });
    const debtors = await client.debtors(pf);
    expect(debtors).toHaveLength(listedBefore + bad.length + 1);
    const names = new Map(debtors.map((d) => [d.externalId, d.identityFirstName]));
    expect([names.get('c101'), names.get('c102'), names.get('c110')]).toEqual(['=HYPERLINK("http://evil")', '@SUM(1+1)', '-cmd']);
    expect([names.get('c900-new'), names.get('c901-new')]).toEqual(['Name 111', 'Name 112']);
    // The second load refused nothing: its file has the header line only.
    expect((await getRejectedRows(stack.publicUrl, tenant.key, again.id)).text).toBe(`\uFEFF${[...HEADER, 'error_row', 'error_column', 'error_message'].join(';')}\r\n`);
  }, 120_000);

  it('thousands of rejected rows stream whole, tab-delimited: from the file stored when the import completed, or paged from the table when it failed', async () => {
    const header = ['identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1'];
    const csv = (rows: string[][]) => `${[header, ...rows].map((l) => l.join('\t')).join('\n')}\n`;
    const bad = (i: number) => [`N${i}`, 'dni', `T${i}`, `bad ${'x'.repeat(500)}`];
    const good = (i: number) => [`N${i}`, 'dni', `T${i}`, '+34 600 000 000'];
    const rejectedOf = async (id: string) => {
      const res = await getRejectedRows(stack.publicUrl, tenant.key, id);
      expect(res.status).toBe(200);
      const [first, ...rejected] = parse(res.text, csvOptions('\t')) as string[][];
      expect(first).toEqual([...header, 'error_row', 'error_column', 'error_message']);
      expect(new Set(rejected.map((r) => r[5]))).toEqual(new Set(['phone_1']));
      return { text: res.text, names: rejected.map((r) => r[0]), rows: rejected.map((r) => Number(r[4])) };
    };
    const recorded = (id: string) =>
      withDatabase(stack.databaseUrl, async (c) => (await c.query(
        'SELECT rejected_rows_file AS file, (SELECT count(*)::int FROM import_rejected_rows WHERE import_id = $1) AS rows FROM imports WHERE id = $1', [id],
      )).rows[0]);

    // Completed: the importer stored the file once; the gateway streams those bytes (the rows stay in the table too).
    const pf = await newPortfolio(operator, tenant.organizationId);
    const done = await client.load(pf, csv(Array.from({ length: 2500 }, (_, i) => (i % 2 ? good(i) : bad(i)))), identityMapping(header));
    expect({ status: done.status, created: done.created, errors: done.errors }).toEqual({ status: 'completed', created: 1250, errors: 1250 });
    expect(await recorded(done.id)).toEqual({ file: `portfolios/${pf}/imports/${done.id}-rejected-rows.csv`, rows: 1250 });
    const stored = await rejectedOf(done.id);
    expect(stored.names).toEqual(Array.from({ length: 1250 }, (_, k) => `N${k * 2}`));
    expect(stored.rows).toEqual(Array.from({ length: 1250 }, (_, k) => k * 2 + 2));
    expect(stored.text).toBe(readFileSync(path.join(stack.storageDir, 'portfolios', pf, 'imports', `${done.id}-rejected-rows.csv`), 'utf8'));

    // Failed (a replace that refused every row): no file; the table's rows, a page of 1,000 at a time.
    const failed = await client.load(pf, csv(Array.from({ length: 2500 }, (_, i) => bad(i))), identityMapping(header), 'replace');
    expect({ status: failed.status, errors: failed.errors }).toEqual({ status: 'failed', errors: 2500 });
    expect(await recorded(failed.id)).toEqual({ file: null, rows: 2500 });
    const paged = await rejectedOf(failed.id);
    expect(paged.rows).toEqual(Array.from({ length: 2500 }, (_, k) => k + 2));
    // Rendered alike: the completed import's lines are the failed one's for the same records.
    const lines = (text: string) => text.split('\r\n');
    expect(lines(stored.text)[1]).toBe(lines(paged.text)[1]);
  }, 120_000);

  it('rows of hundreds of KiB each: every one, in order, over pages bounded by their size, from the stored file and from the table', async () => {
    const header = ['identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1'];
    const big = (i: number) => [`N${i}`, 'dni', `B${i}`, `bad ${String(i).repeat(100)}${'y'.repeat(400 * 1024)}`];
    const csv = (rows: string[][]) => `${[header, ...rows].map((l) => l.join(',')).join('\n')}\n`;
    const refused = Array.from({ length: 14 }, (_, i) => big(i));
    const expectAll = async (id: string, rowNumbers: number[]) => {
      const res = await getRejectedRows(stack.publicUrl, tenant.key, id);
      expect(res.status).toBe(200);
      const [, ...rejected] = parse(res.text, csvOptions(',')) as string[][];
      expect(rejected.map((r) => r[0])).toEqual(refused.map((r) => r[0]));
      expect(rejected.map((r) => r[3])).toEqual(refused.map((r) => r[3]));
      expect(rejected.map((r) => Number(r[4]))).toEqual(rowNumbers);
    };
    const pf = await newPortfolio(operator, tenant.organizationId);
    // 5.6 MiB refused: two pages of the importer's file (4 MiB), six of api-core's (1 MiB).
    const done = await client.load(pf, csv([...refused, ['Ok', 'dni', 'OK1', '+34 600 000 000']]), identityMapping(header));
    expect({ status: done.status, created: done.created, errors: done.errors }).toEqual({ status: 'completed', created: 1, errors: 14 });
    await expectAll(done.id, refused.map((_, i) => i + 2));
    const failed = await client.load(pf, csv(refused), identityMapping(header), 'replace');
    expect({ status: failed.status, errors: failed.errors }).toEqual({ status: 'failed', errors: 14 });
    await expectAll(failed.id, refused.map((_, i) => i + 2));
  }, 120_000);

  it("404 for another organization's import, an unknown or a malformed id; a read key is enough", async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const done = await client.load(pf, file([ok(1, { phone_1: 'bad' })]), identityMapping(HEADER));
    expect((await getRejectedRows(stack.publicUrl, tenant.readKey, done.id)).status).toBe(200);
    for (const [key, id] of [[other.key, done.id], [tenant.key, 'imp_01ARZ3NDEKTSV4RRFFQ69G5FAV'], [tenant.key, 'nope']]) {
      const res = await getRejectedRows(stack.publicUrl, key, id);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text)).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: requestId(res) } });
    }
  });
});
