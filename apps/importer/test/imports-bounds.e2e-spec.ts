import { ImportLimits, type ImportView } from '@dc/contracts';
import { LocalDiskStorage } from '@dc/storage';
import {
  createTenant, csvLine, enqueueImport, identityMapping, OperatorClient, requestUploadUrl, ServiceProcess, Stack, Tenant, withDatabase,
} from '@dc/testing';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { ImportClient, importStackEnv, newPortfolio, startImporter } from './import-kit';

/**
 * No input stalls or crashes an importer (docs/adr/0043): a NUL cell is a row error, a
 * record past 1 MiB (an unclosed quote) fails its import at once with bounded memory, a value
 * Postgres refuses fails the import instead of retrying it forever, runs are bounded, the importer
 * reads exactly the file enqueue checked, and an operator can cancel an import.
 */
describe('importer: bounded imports', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let client: ImportClient;
  let importer: ServiceProcess;

  const HEADER = ['identity_first_name', 'identity_document_type', 'identity_document_number', 'debt_external_id', 'debt_total_amount', 'debt_currency'];
  const csv = (rows: string[][]) => `${[HEADER, ...rows].map((r) => csvLine(r)).join('\n')}\n`;
  const rowsOf = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => [`Name ${i}`, 'national_id', `${prefix}${i}`, `${prefix}-d${i}`, '10', 'EUR']);
  const fresh = () => newPortfolio(operator, tenant.organizationId);
  const summary = (v: ImportView) => ({ status: v.status, created: v.created, errors: v.errors, failureReason: v.failureReason });
  const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

  beforeAll(async () => {
    stack = await Stack.start({ env: importStackEnv({ IMPORT_MAX_ROWS: '5000', IMPORT_MAX_ATTEMPTS: '3' }) });
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator);
    client = new ImportClient(stack, tenant.key);
    importer = await startImporter(stack, { IMPORT_CHUNK_ROWS: '500' });
  }, 60_000);
  afterAll(() => stack?.stop());

  it('a file replaced after enqueue (a second PUT to its still-valid URL) is refused: nothing of either file is loaded', async () => {
    const pf = await fresh();
    // No importer until the file was replaced behind the enqueued import.
    await importer.stop();
    const upload = (await requestUploadUrl(stack.publicUrl, tenant.key, pf)).body.data;
    const put = (body: string) => fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body });
    expect((await put(csv(rowsOf(2, 'R')))).status).toBe(200);
    const queued = await client.enqueue(pf, upload.storageKey, identityMapping(HEADER), 'add');
    expect((await put(csv(rowsOf(3, 'X')))).status).toBe(200);
    importer = await startImporter(stack, { IMPORT_CHUNK_ROWS: '500' });
    const done = await client.wait(queued.id);
    expect(summary(done)).toEqual({
      status: 'failed',
      created: 0,
      errors: 0,
      failureReason: 'the file under this storageKey was replaced after the import was enqueued: nothing of the new file was read (enqueue it again to load it)',
    });
    expect(await client.debtors(pf)).toEqual([]);
    // Enqueued again, the new file is checked as it is now, and loads.
    expect(summary(await client.wait((await client.enqueue(pf, upload.storageKey, identityMapping(HEADER), 'add')).id))).toEqual({
      status: 'completed', created: 3, errors: 0, failureReason: null,
    });
  });

  it('a cell holding NUL (U+0000) refuses its row, naming row and column; the other rows load', async () => {
    const pf = await fresh();
    const view = await client.load(pf, csv([['Ana', 'national_id', 'N1', 'n-d1', '10', 'EUR'], ['Bo\u0000b', 'national_id', 'N2', 'n-d2', '10', 'EUR'], ['Eva', 'national_id', 'N3', 'n-d3', '10', 'EUR']]), identityMapping(HEADER));
    expect(summary(view)).toEqual({ status: 'completed', created: 2, errors: 1, failureReason: null });
    expect(view.errorDetails).toEqual(['row 3: identity_first_name: contains a NUL character (U+0000), which cannot be stored']);
    expect((await client.debtors(pf)).map((d) => d.identityDocumentNumber).sort()).toEqual(['N1', 'N3']);
  });

  it('an unclosed quote over a 200 MB file ends its import at once, the importer grows by less than 150 MB, and the next import completes', async () => {
    const pf = await fresh();
    const upload = (await requestUploadUrl(stack.publicUrl, tenant.key, pf)).body.data;
    const storage = new LocalDiskStorage({ dir: stack.storageDir, signingKey: Buffer.alloc(32), publicBaseUrl: 'http://127.0.0.1' });
    const mb = Buffer.alloc(1024 * 1024, 'x');
    async function* file() {
      yield Buffer.from(`${csvLine(HEADER)}\nAna,national_id,Q1,q-d1,10,EUR\n"Never closed,`);
      for (let i = 0; i < 200; i += 1) yield mb;
    }
    await storage.write(upload.storageKey, Readable.from(file()), 1 << 30);
    const before = rssMiB(importer.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(importer.pid))), 20);
    try {
      const started = Date.now();
      const done = await client.wait((await client.enqueue(pf, upload.storageKey, identityMapping(HEADER))).id, 20_000);
      // Row 2 was in the chunk the failure rolled back: nothing was staged.
      expect(summary(done)).toEqual({
        status: 'failed',
        created: 0,
        errors: 0,
        failureReason: `record 3 is longer than ${ImportLimits.maxRecordBytes} bytes, the limit of one record (an unclosed quote, or a value too long): the file was read no further`,
      });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(150);
    expect(importer.running).toBe(true);
    const next = await client.load(await fresh(), csv(rowsOf(3, 'A')), identityMapping(HEADER));
    expect(summary(next)).toEqual({ status: 'completed', created: 3, errors: 0, failureReason: null });
  });

  it('a file with more data rows than IMPORT_MAX_ROWS ends failed at the row past it; a header past the column limit is refused at enqueue', async () => {
    const pf = await fresh();
    const done = await client.load(pf, csv(rowsOf(5_001, 'M')), identityMapping(HEADER));
    // The chunks read before it may or may not have been merged when the reader stopped.
    expect(done).toMatchObject({ status: 'failed', failureReason: 'the file has more than 5000 data rows, the limit: records from 5002 on were not loaded' });
    expect(done.created).toBeLessThanOrEqual(5_000);

    const wide = Array.from({ length: ImportLimits.maxColumns + 1 }, (_, i) => `c${i}`);
    const storageKey = await client.upload(pf, `${wide.join(',')}\n`);
    const res = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: identityMapping(HEADER) });
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([
      { path: 'storageKey', message: `the file uploaded under this storageKey cannot be read as CSV: the header has ${ImportLimits.maxColumns + 1} columns, more than the limit of ${ImportLimits.maxColumns}` },
    ]);
    const nul = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey: await client.upload(pf, `${HEADER.join(',')},No\u0000te\n`), columnMapping: identityMapping(HEADER) });
    expect(nul.status).toBe(400);
    expect(nul.body.error.issues).toEqual([
      { path: 'storageKey', message: 'the file uploaded under this storageKey cannot be read as CSV: column 7 of the header contains a NUL character (U+0000), which cannot be stored' },
    ]);
  });

  it('a value Postgres refuses ends the import failed with the reason, never a retry', async () => {
    const pf = await fresh();
    // A rule the row rules do not know (this file's database only): Postgres refuses the chunk with 23514.
    await withDatabase(stack.databaseUrl, (c) => c.query(`ALTER TABLE debtors ADD CONSTRAINT test_refused CHECK (identity_first_name <> 'Zed') NOT VALID`));
    try {
      const view = await client.load(pf, csv([['Ana', 'national_id', 'V1', 'v-d1', '10', 'EUR'], ['Zed', 'national_id', 'V2', 'v-d2', '10', 'EUR']]), identityMapping(HEADER), undefined, 20_000);
      expect(summary(view)).toEqual({
        status: 'failed',
        created: 0,
        errors: 0,
        failureReason: 'a value of the file cannot be stored: new row for relation "debtors" violates check constraint "test_refused"',
      });
      expect(await client.debtors(pf)).toEqual([]);
    } finally {
      await withDatabase(stack.databaseUrl, (c) => c.query('ALTER TABLE debtors DROP CONSTRAINT test_refused'));
    }
  });

  it('an import whose runs ran out (IMPORT_MAX_ATTEMPTS) ends failed with the last error', async () => {
    const pf = await fresh();
    await importer.stop();
    const queued = await client.enqueue(pf, await client.upload(pf, csv(rowsOf(2, 'T'))), identityMapping(HEADER));
    // As three runs that crashed would leave it: attempts counted, no error recorded.
    await withDatabase(stack.databaseUrl, (c) => c.query('UPDATE imports SET attempts = 3 WHERE id = $1', [queued.id]));
    importer = await startImporter(stack, { IMPORT_CHUNK_ROWS: '500' });
    expect(summary(await client.wait(queued.id))).toEqual({
      status: 'failed',
      created: 0,
      errors: 0,
      failureReason: 'stopped after 3 attempts that did not finish it (IMPORT_MAX_ATTEMPTS); the last: the importer stopped while processing it (a crash, or out of memory)',
    });
  });

  describe('operator cancel', () => {
    const cancel = (id: string) => operator.request('POST', `/imports/${id}/cancel`);

    it('a queued import: 200 failed, reason cancelled; its job never runs; again is 409; unknown is 404', async () => {
      const pf = await fresh();
      await importer.stop();
      const queued = await client.enqueue(pf, await client.upload(pf, csv(rowsOf(2, 'C'))), identityMapping(HEADER));
      const res = await cancel(queued.id);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ ...queued, status: 'failed', failureReason: 'cancelled', updatedAt: expect.any(String), finishedAt: expect.any(String) });
      importer = await startImporter(stack, { IMPORT_CHUNK_ROWS: '500' });
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await client.get(`/imports/${queued.id}`)).body.data).toEqual(res.body.data);
      expect(await client.debtors(pf)).toEqual([]);
      const again = await cancel(queued.id);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'invalid_state_transition', message: `The import ${queued.id} already ended (failed); only a queued or processing import can be cancelled.` });
      expect((await cancel('imp_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    });

    it('a processing import stops at its next chunk; its staging rows go; the rows merged so far stay', async () => {
      const pf = await fresh();
      await importer.stop();
      importer = await startImporter(stack, { IMPORT_CHUNK_ROWS: '2' });
      // 3,000 rows in chunks of 2: well over a second of merging.
      const queued = await client.enqueue(pf, await client.upload(pf, csv(rowsOf(3_000, 'P'))), identityMapping(HEADER));
      // Until it has merged something (and, the test failing, no longer than it takes to end).
      let view = queued;
      while (view.status !== 'completed' && view.status !== 'failed' && !(view.status === 'processing' && view.processedRows > 0)) {
        await new Promise((r) => setTimeout(r, 50));
        view = (await client.get(`/imports/${queued.id}`)).body.data as ImportView;
      }
      const res = await cancel(queued.id);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'failed', failureReason: 'cancelled' });
      await importer.waitForLog((l) => l.msg === 'import cancelled' && l.importId === queued.id, 20_000);
      const after = (await client.get(`/imports/${queued.id}`)).body.data as ImportView;
      expect(after).toMatchObject({ status: 'failed', failureReason: 'cancelled' });
      const staged = await withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT count(*)::int AS n FROM import_rows WHERE import_id = $1', [queued.id])).rows[0].n);
      expect(staged).toBe(0);
      expect((await client.debtors(pf)).length).toBe(after.created);
    });
  });
});
