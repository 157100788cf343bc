import type { ImportView } from '@dc/contracts';
import {
  createTenant, generateCsv, GENERATED_HEADER, identityMapping, OperatorClient, ServiceProcess, Stack, Tenant, waitForImport, withDatabase,
} from '@dc/testing';
import { ImportClient, importRows, importStackEnv, liveCounts, newPortfolio, rowOf, startImporter } from './import-kit';

/**
 * Resumable and parallel (docs/adr/0022): an importer killed with SIGKILL in the
 * middle of a file is replaced by a new process that completes the import with exact counts (no
 * duplicate, no lost row); two importer processes share two imports, each counted once.
 */
describe('importer: kill -9 and restart, several importers', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let client: ImportClient;
  const IMPORTER_ENV = { IMPORT_CHUNK_ROWS: '500' };

  beforeAll(async () => {
    stack = await Stack.start({ env: importStackEnv() });
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator);
    client = new ImportClient(stack, tenant.key);
  }, 60_000);
  afterAll(() => stack?.stop());

  /** The planted bad rows: 0-based indexes, one every 1,000 rows. */
  const badRows = (rows: number) => new Set(Array.from({ length: Math.floor(rows / 1000) }, (_, k) => k * 1000 + 777));

  async function expectExactLoad(pf: string, view: ImportView, rows: number, bad: Set<number>): Promise<void> {
    const good = rows - bad.size;
    expect(view).toMatchObject({ status: 'completed', created: good, updated: 0, errors: bad.size, processedRows: rows, totalRows: rows, failureReason: null });
    // Every planted row reported once (the order may differ after a restart).
    expect([...view.errorDetails].sort((a, b) => rowOf(a) - rowOf(b))).toEqual(
      [...bad].sort((a, b) => a - b).map((i) => expect.stringMatching(new RegExp(`^row ${i + 2}: phone_1: \\S`))),
    );
    expect(await liveCounts(stack, pf)).toEqual({
      debtors: { n: good, documents: good, external_ids: good },
      debts: { n: good, external_ids: good },
      phones: good,
    });
  }

  /**
   * Waits until the import is processing and `when` holds, then SIGKILLs `importer`; answers the import
   * as seen after the kill. Fails when the import ends first (the file is too small for the machine).
   */
  async function killWhen(importer: ServiceProcess, importId: string, when: (v: ImportView) => boolean, what: string): Promise<ImportView> {
    const seen = await waitForImport(stack.publicUrl, tenant.key, importId, (v) => v.status === 'completed' || v.status === 'failed' || (v.status === 'processing' && when(v)), 90_000, {
      intervalMs: 10,
    });
    if (seen.status !== 'processing') throw new Error(`the import ended (${seen.status}) before it could be killed ${what}: use more rows`);
    await importer.stop('SIGKILL');
    expect(importer.exitDescription).toBe('signal SIGKILL');
    const afterKill = (await client.get(`/imports/${importId}`)).body.data as ImportView;
    expect(afterKill.status).toBe('processing');
    return afterKill;
  }

  it('SIGKILL while reading, then again while merging: each new importer resumes; the import completes with exact counts, no duplicate, no lost row', async () => {
    const rows = 20_000;
    const bad = badRows(rows);
    const pf = await newPortfolio(operator, tenant.organizationId);
    const key = await client.upload(pf, generateCsv(rows, { prefix: 'kill', badPhoneRows: bad }));
    const first = await startImporter(stack, IMPORTER_ENV);
    const queued = await client.enqueue(pf, key, identityMapping(GENERATED_HEADER));
    const reading = await killWhen(first, queued.id, (v) => v.totalRows > 0 && v.totalRows < rows, 'while reading');

    // A killed worker's job is taken again once its lock expires (BullMQ's stalled-job check).
    const second = await startImporter(stack, IMPORTER_ENV);
    const merging = await killWhen(second, queued.id, (v) => v.processedRows >= Math.max(rows / 4, reading.processedRows + 1) && v.processedRows < rows, 'while merging');
    expect(merging.processedRows).toBeGreaterThan(reading.processedRows);

    const third = await startImporter(stack, IMPORTER_ENV);
    const done = await client.wait(queued.id, 150_000);
    await expectExactLoad(pf, done, rows, bad);
    expect(await importRows(stack, pf)).toEqual([{ id: queued.id, status: 'completed' }]);
    await third.stop('SIGTERM');
  }, 300_000);

  it('SIGKILL during a replace, once the file is read: never a mix of old and new; after the restart the portfolio holds exactly the new file', async () => {
    const first = await startImporter(stack, IMPORTER_ENV);
    const pf = await newPortfolio(operator, tenant.organizationId);
    expect(await client.load(pf, generateCsv(1000, { prefix: 'old' }), identityMapping(GENERATED_HEADER))).toMatchObject({ status: 'completed', created: 1000 });
    const liveExternalIds = () =>
      withDatabase(stack.databaseUrl, async (c) =>
        (await c.query(`SELECT substr(external_id, 1, 4) AS prefix, count(*)::int AS n FROM debtors WHERE portfolio_id = $1 AND deleted_at IS NULL GROUP BY 1 ORDER BY 1`, [pf])).rows);
    const rows = 20_000;
    const bad = badRows(rows);
    const key = await client.upload(pf, generateCsv(rows, { prefix: 'new', badPhoneRows: bad }));
    const queued = await client.enqueue(pf, key, identityMapping(GENERATED_HEADER), 'replace');
    await killWhen(first, queued.id, (v) => v.totalRows === rows, 'once the file is read');
    // One transaction: the old set whole, or (killed after the commit, before the import was marked
    // completed) the new set whole; never a mix, never both.
    expect([[{ prefix: 'old-', n: 1000 }], [{ prefix: 'new-', n: rows - bad.size }]]).toContainEqual(await liveExternalIds());

    const second = await startImporter(stack, IMPORTER_ENV);
    const done = await client.wait(queued.id, 150_000);
    await expectExactLoad(pf, done, rows, bad);
    expect(await liveExternalIds()).toEqual([{ prefix: 'new-', n: rows - bad.size }]);
    await second.stop('SIGTERM');
  }, 240_000);

  it('two importer processes, two imports of two portfolios: both complete, each row counted once', async () => {
    const rows = 6_000;
    const bad = badRows(rows);
    const importers: ServiceProcess[] = await Promise.all([startImporter(stack, IMPORTER_ENV), startImporter(stack, IMPORTER_ENV)]);
    const portfolios = [await newPortfolio(operator, tenant.organizationId), await newPortfolio(operator, tenant.organizationId)];
    const keys = await Promise.all(portfolios.map((pf, i) => client.upload(pf, generateCsv(rows, { prefix: `par${i}`, badPhoneRows: bad }))));
    const queued = await Promise.all(portfolios.map((pf, i) => client.enqueue(pf, keys[i], identityMapping(GENERATED_HEADER))));
    const done = await Promise.all(queued.map((q) => client.wait(q.id, 120_000)));
    for (const [i, pf] of portfolios.entries()) {
      await expectExactLoad(pf, done[i], rows, bad);
      expect(await importRows(stack, pf)).toEqual([{ id: queued[i].id, status: 'completed' }]);
    }
    for (const importer of importers) expect(importer.running).toBe(true);
  }, 180_000);
});
