import type { ImportMode, ImportView } from '@dc/contracts';
import { createTenant, csvLine, enqueueImport, identityMapping, OperatorClient, Stack, Tenant, uploadCsv, withDatabase } from '@dc/testing';
import { ImportClient, newPortfolio, startImportStack } from './import-kit';

/**
 * Dry runs (docs/imports.md, "Dry runs"): `dryRun: true` runs the whole load in the mode and writes
 * nothing; its counters are those of a real run of the same file on the same data — created,
 * updated, unchanged, errors, markedPaid, deleted, payments — across chunks (IMPORT_CHUNK_ROWS 500).
 */
describe('imports: dry runs count what a real run does, and write nothing', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let other: Tenant;
  let client: ImportClient;

  const HEADER = [
    'debtor_external_id', 'identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1', 'email_1',
    'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency', 'payment_external_id', 'payment_amount', 'payment_date',
  ];
  const csv = (rows: string[][]) => `${[HEADER, ...rows].map((r) => csvLine(r)).join('\n')}\n`;
  const BASE = [
    ['c1', 'Ana', 'dni', 'A1', '+34600000001', 'ana@example.com', 'd1', '100', '0', 'EUR', '', '', ''],
    ['c2', 'Luis', 'dni', 'A2', '+34600000002', 'luis@example.com', 'd2', '200', '0', 'EUR', 'p1', '10', '2026-01-01'],
    ['c3', 'Eva', 'dni', 'A3', '+34600000003', '', 'd3', '300', '0', 'EUR', '', '', ''],
    ['c4', 'Rosa', 'dni', 'A4', '', '', 'd4', '400', '0', 'EUR', '', '', ''],
  ];
  /** Rows of every outcome, then 1,200 rows over three chunks: 600 debtors created, then each updated by a later chunk. */
  const SECOND = [
    ['c1', 'Ana', 'dni', 'A1', '+34600000001', 'ana@example.com', 'd1', '100', '0', 'EUR', '', '', ''], // as stored: unchanged
    ['c2', 'Luis', 'dni', 'A2', '+34600000022', 'luis@example.com', 'd2', '200', '50', 'EUR', 'p1', '10', '2026-01-01'], // changed; p1 known
    ['c5', 'Nora', 'dni', 'A5', '+34600000005', '', 'd5', '500', '0', 'EUR', 'p2', '20', '2026-02-01'], // new, with a payment
    ['c6', '=HYPERLINK("http://x")', 'dni', 'A6', '600 11 22', '', 'd6', '600', '0', 'EUR', '', '', ''], // refused reading: phone
    ['c7', 'Zoe', 'dni', 'A7', '', '', 'd1', '700', '0', 'EUR', '', '', ''], // update: d1 is c1's (debt_external_id_in_use)
    ['c3', 'Eva', 'dni', 'A3', '', '', 'd3', '300', '0', 'USD', '', '', ''], // update: d3 is in EUR (debt_currency_mismatch)
    ...Array.from({ length: 600 }, (_, i) => [`g${i}`, `G ${i}`, 'dni', `G${i}`, '', '', `gd${i}`, '10', '0', 'EUR', '', '', '']),
    ...Array.from({ length: 600 }, (_, i) => [`g${i}`, `G ${i}`, 'dni', `G${i}`, '', '', `gd${i}`, '20', '0', 'EUR', '', '', '']),
  ];
  const EFFECT = ['created', 'updated', 'unchanged', 'errors', 'markedPaid', 'deleted', 'paymentsRegistered', 'paymentsSkipped', 'processedRows', 'totalRows'] as const;
  const effect = (v: ImportView) => Object.fromEntries([['status', v.status], ['dryRun', v.dryRun], ...EFFECT.map((k) => [k, v[k]])]);

  /** Everything a load can write for the portfolio, as one digest per table (and the row counts). */
  const snapshot = (pf: string) =>
    withDatabase(stack.databaseUrl, async (c) => {
      const digest = async (sql: string) => (await c.query(`SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS md5 FROM (${sql}) t`, [pf])).rows[0];
      return {
        debtors: await digest('SELECT d.* FROM debtors d WHERE d.portfolio_id = $1'),
        debts: await digest('SELECT t.* FROM debts t WHERE t.portfolio_id = $1'),
        phones: await digest('SELECT p.* FROM debtor_phones p JOIN debtors d ON d.id = p.debtor_id WHERE d.portfolio_id = $1'),
        emails: await digest('SELECT e.* FROM debtor_emails e JOIN debtors d ON d.id = e.debtor_id WHERE d.portfolio_id = $1'),
        payments: await digest('SELECT p.* FROM payments p WHERE p.portfolio_id = $1'),
      };
    });

  const run = async (pf: string, body: string, mode: ImportMode, dryRun: boolean) => {
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, body);
    const res = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: identityMapping(HEADER), conflictResolution: mode, dryRun });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ status: 'queued', dryRun, unchanged: 0, markedPaid: 0, deleted: 0 });
    return client.wait(res.body.data.id, 120_000);
  };

  beforeAll(async () => {
    ({ stack, operator, tenant, client } = await startImportStack());
    other = await createTenant(operator);
  }, 60_000);
  afterAll(() => stack?.stop());

  const expected: Record<ImportMode, Partial<Record<(typeof EFFECT)[number], number>>> = {
    // Every row creates (the 600 later rows meet debtors and debts this load made in an earlier chunk).
    add: { created: 605, updated: 600, unchanged: 0, errors: 1, markedPaid: 0, deleted: 0, paymentsRegistered: 1, paymentsSkipped: 1 },
    update: { created: 601, updated: 602, unchanged: 1, errors: 3, markedPaid: 0, deleted: 0, paymentsRegistered: 1, paymentsSkipped: 1 },
    // d4 alone is live and not in the file (d3's row was refused, but names it).
    reconcile: { created: 601, updated: 602, unchanged: 1, errors: 3, markedPaid: 1, deleted: 0, paymentsRegistered: 1, paymentsSkipped: 1 },
    // The four base debtors go; the file loads afresh (c7's d1 is then the new c1's).
    replace: { created: 604, updated: 600, unchanged: 0, errors: 2, markedPaid: 0, deleted: 4, paymentsRegistered: 1, paymentsSkipped: 1 },
  };

  for (const mode of ['add', 'update', 'reconcile', 'replace'] as const) {
    it(`${mode}: the dry run's counters are the real run's, and nothing is written`, async () => {
      const pf = await newPortfolio(operator, tenant.organizationId, ['EUR', 'USD']);
      expect((await run(pf, csv(BASE), 'add', false)).status).toBe('completed');
      const before = await snapshot(pf);

      const dry = await run(pf, csv(SECOND), mode, true);
      expect(await snapshot(pf)).toEqual(before);
      const real = await run(pf, csv(SECOND), mode, false);

      const counts = { ...expected[mode], processedRows: SECOND.length, totalRows: SECOND.length };
      expect(effect(real)).toEqual({ status: 'completed', dryRun: false, ...counts });
      expect(effect(dry)).toEqual({ ...effect(real), dryRun: true });
      expect(dry.errorDetails).toEqual(real.errorDetails);
      expect(await snapshot(pf)).not.toEqual(before);
    }, 180_000);
  }

  it('a replace dry run in which every row is refused fails as the real run would, and leaves the portfolio as it was', async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    expect((await run(pf, csv(BASE), 'add', false)).status).toBe('completed');
    const before = await snapshot(pf);
    const dry = await run(pf, csv([['x1', '', 'dni', 'X1', '', '', '', '', '', '', '', '', '']]), 'replace', true);
    expect({ status: dry.status, dryRun: dry.dryRun, errors: dry.errors, deleted: dry.deleted, failureReason: dry.failureReason }).toEqual({
      status: 'failed', dryRun: true, errors: 1, deleted: 0, failureReason: 'replace loaded no row (every row was refused, or the file has none): the portfolio was left as it was',
    });
    expect(await snapshot(pf)).toEqual(before);
  });

  it("dryRun must be a boolean; another organization's key sees none of it", async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, csv(BASE));
    const bad = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: identityMapping(HEADER), dryRun: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', issues: [{ path: 'dryRun', message: expect.stringContaining('boolean') }] });
    const dry = await run(pf, csv(BASE), 'update', true);
    const foreign = await new ImportClient(stack, other.key).get(`/imports/${dry.id}`);
    expect(foreign.status).toBe(404);
  });
});
