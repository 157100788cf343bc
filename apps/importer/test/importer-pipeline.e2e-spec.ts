import { IMPORTS_QUEUE, ImportMode } from '@dc/contracts';
import { bullPrefix } from '@dc/config';
import { IMPORT_JOB_NAME, IMPORT_JOB_OPTIONS } from '@dc/imports';
import { LocalDiskStorage } from '@dc/storage';
import { eventually, holdAdvisoryLock, ServiceProcess, Stack } from '@dc/testing';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { ulid } from 'ulid';

/**
 * The importer's pipeline from the inside (docs/adr/0022): imports are created as api-core creates
 * them (an uploads and an imports row, the file in the stack's storage directory, a BullMQ job),
 * and their effect is read in SQL — modes, replace's all-or-nothing, resume after kill -9, a file
 * that cannot be parsed, the import lock. The public routes and the read API are covered by the
 * imports-*.e2e-spec.ts files.
 */
describe('importer pipeline', () => {
  let stack: Stack;
  let importer: ServiceProcess;
  let storage: LocalDiskStorage;
  let redis: IORedis;
  let queue: Queue;
  let db: Client;
  const ORG = `org_${ulid()}`;
  const KEY = `key_${ulid()}`;

  const FULL = ['debtor_external_id', 'identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1', 'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency'];

  async function startImporter(env: Record<string, string> = {}): Promise<ServiceProcess> {
    const service = await stack.startService('importer', { IMPORT_CHUNK_ROWS: '2', IMPORT_STATEMENT_TIMEOUT_MS: '2000', ...env });
    await service.waitForLog((l) => l.msg === 'importer ready', 20_000);
    return service;
  }

  async function newPortfolio(): Promise<string> {
    const id = `pf_${ulid()}`;
    await db.query(`INSERT INTO portfolios (id, organization_id, identity_name, identity_currency) VALUES ($1, $2, 'p', '{EUR}')`, [id, ORG]);
    return id;
  }

  /** What api-core does at enqueue: the file stored under an issued key, the imports row, the job. */
  async function enqueue(portfolioId: string, csv: string, mode: ImportMode, header: string[] = FULL, expires = "now() + interval '1 hour'"): Promise<string> {
    const uploadId = `upl_${ulid()}`;
    const importId = `imp_${ulid()}`;
    const storageKey = `portfolios/${portfolioId}/uploads/${uploadId}.csv`;
    await storage.write(storageKey, Readable.from([Buffer.from(csv)]), 1 << 30);
    await db.query(`INSERT INTO uploads (id, portfolio_id, api_key_id, storage_key, expires_at) VALUES ($1, $2, $3, $4, ${expires})`, [
      uploadId, portfolioId, KEY, storageKey,
    ]);
    const mapping = header.map((h) => ({ sourceColumn: h, targetField: h }));
    await db.query(
      `INSERT INTO imports (id, portfolio_id, upload_id, storage_key, column_mapping, conflict_resolution, delimiter) VALUES ($1, $2, $3, $4, $5, $6, ',')`,
      [importId, portfolioId, uploadId, storageKey, JSON.stringify(mapping), mode],
    );
    await queue.add(IMPORT_JOB_NAME, { importId }, { ...IMPORT_JOB_OPTIONS, jobId: importId });
    return importId;
  }

  interface ImportState {
    status: string;
    phase: string;
    created: number;
    updated: number;
    errors: number;
    processedRows: number;
    totalRows: number;
    errorDetails: string[];
    failureReason: string | null;
    checkpointRow: number;
    mergedRow: number;
    storageKey: string;
  }

  async function state(importId: string): Promise<ImportState> {
    const { rows } = await db.query(
      `SELECT status, phase, created, updated, errors, processed_rows AS "processedRows", total_rows AS "totalRows",
         error_details AS "errorDetails", failure_reason AS "failureReason", checkpoint_row AS "checkpointRow",
         merged_row AS "mergedRow", storage_key AS "storageKey"
       FROM imports WHERE id = $1`,
      [importId],
    );
    return rows[0] as ImportState;
  }

  async function finished(importId: string, timeoutMs = 30_000): Promise<ImportState> {
    let last: ImportState | undefined;
    await eventually(async () => {
      last = await state(importId);
      expect(['completed', 'failed']).toContain(last.status);
    }, timeoutMs);
    return last!;
  }

  const counters = (s: ImportState) => ({ status: s.status, created: s.created, updated: s.updated, errors: s.errors, processedRows: s.processedRows, totalRows: s.totalRows });
  const csv = (header: string[], rows: string[][]) => `${[header, ...rows].map((r) => r.join(',')).join('\n')}\n`;
  const row = (i: number, prefix: string, extra: Partial<Record<'debt' | 'total' | 'paid', string>> = {}) => [
    `${prefix}-c${i}`, `Name ${i}`, 'national_id', `${prefix}-D${i}`, `+34600${String(100000 + i)}`, extra.debt ?? `${prefix}-d${i}`, extra.total ?? '100', extra.paid ?? '0', 'EUR',
  ];

  async function live(portfolioId: string) {
    const debtors = (await db.query('SELECT id, external_id, identity_document_number, identity_first_name FROM debtors WHERE portfolio_id = $1 AND deleted_at IS NULL ORDER BY id', [portfolioId])).rows;
    const debts = (
      await db.query(
        'SELECT id, debtor_id, external_id, total_amount::float8 AS total, paid_amount::float8 AS paid, status FROM debts WHERE portfolio_id = $1 AND deleted_at IS NULL ORDER BY external_id',
        [portfolioId],
      )
    ).rows;
    return { debtors, debts };
  }

  beforeAll(async () => {
    stack = await Stack.start({ apiCoreReplicas: 0, gatewayReplicas: 0 });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'Acme')`, [ORG]);
    await db.query(`INSERT INTO api_keys (id, organization_id, name, key_prefix, key_hash, stage, scopes) VALUES ($1, $2, 'k', 'x', $1, 'live', '{read,write}')`, [KEY, ORG]);
    storage = new LocalDiskStorage({ dir: stack.storageDir, signingKey: Buffer.alloc(32), publicBaseUrl: 'http://127.0.0.1' });
    redis = new IORedis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queue = new Queue(IMPORTS_QUEUE, { connection: redis, prefix: bullPrefix({ keyPrefix: stack.env.REDIS_KEY_PREFIX }) });
    importer = await startImporter();
  }, 60_000);

  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await db?.end();
    await stack?.stop();
  });

  describe('add', () => {
    it('a second run of the same file creates every row again, live external ids included; a file without external ids duplicates', async () => {
      const pf = await newPortfolio();
      const file = csv(FULL, [row(1, 'a'), row(2, 'a'), row(3, 'a')]);
      expect(counters(await finished(await enqueue(pf, file, 'add')))).toEqual({ status: 'completed', created: 3, updated: 0, errors: 0, processedRows: 3, totalRows: 3 });
      const before = await live(pf);
      expect(before.debtors.map((d) => d.external_id)).toEqual(['a-c1', 'a-c2', 'a-c3']);

      const again = await finished(await enqueue(pf, file, 'add'));
      expect(counters(again)).toEqual({ status: 'completed', created: 3, updated: 0, errors: 0, processedRows: 3, totalRows: 3 });
      expect(again.errorDetails).toEqual([]);
      const after = await live(pf);
      expect(after.debtors.map((d) => d.external_id)).toEqual(['a-c1', 'a-c2', 'a-c3', 'a-c1', 'a-c2', 'a-c3']);
      // The first run's rows are untouched (docs/adr/0041).
      expect(after.debtors.slice(0, 3)).toEqual(before.debtors);

      const header = ['identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1'];
      const anonymous = csv(header, [['Ana', 'national_id', 'X1', '+34600000001'], ['Bea', 'national_id', 'X2', '+34600000002'], ['Ana', 'national_id', 'X1', '+34600000003']]);
      const pf2 = await newPortfolio();
      for (let run = 0; run < 2; run += 1) {
        // Rows 2 and 4 share a document: one debtor per run, its phones from the last of them.
        expect(counters(await finished(await enqueue(pf2, anonymous, 'add', header)))).toEqual({ status: 'completed', created: 2, updated: 1, errors: 0, processedRows: 3, totalRows: 3 });
      }
      const { debtors } = await live(pf2);
      expect(debtors.map((d) => [d.external_id, d.identity_document_number])).toEqual([[null, 'X1'], [null, 'X2'], [null, 'X1'], [null, 'X2']]);
      const phones = (await db.query('SELECT debtor_id, phone_e164, position, "primary", origin FROM debtor_phones WHERE debtor_id = $1', [debtors[0].id])).rows;
      expect(phones).toEqual([{ debtor_id: debtors[0].id, phone_e164: '+34600000003', position: 0, primary: true, origin: 'import' }]);
    });
  });

  it('text survives staging as written: quotes, commas, newlines, tabs, backslashes, non-ASCII; refused values are quoted back', async () => {
    const pf = await newPortfolio();
    const name = 'Zoë "Z", \\ back\tslash\nnext line';
    const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;
    const file = [
      FULL.join(','),
      ['t-c1', quoted(name), 'national_id', 'T1', '+34600000001', 't-d1', '100', '0', 'EUR'].join(','),
      ['t-c2', 'Bad', 'national_id', 'T2', quoted('+34 \\ "6"'), 't-d2', '100', '0', 'EUR'].join(','),
    ].join('\r\n');
    const view = await finished(await enqueue(pf, `${file}\r\n`, 'add'));
    expect(counters(view)).toEqual({ status: 'completed', created: 1, updated: 0, errors: 1, processedRows: 2, totalRows: 2 });
    expect(view.errorDetails).toEqual(['row 3: phone_1: "+34 \\\\ \\"6\\"" is not an E.164 number (+, country code, 9 to 15 digits in total)']);
    const { debtors } = await live(pf);
    expect(debtors.map((d) => d.identity_first_name)).toEqual([name]);
  });

  it('update: one debtor with three debts over three rows (and chunks); a second file updates the amounts in place', async () => {
    const pf = await newPortfolio();
    const debtor = (debt: string, total: string, paid: string) => ['u-c1', 'Ana', 'national_id', 'U1', '+34600000001', debt, total, paid, 'EUR'];
    const first = await finished(await enqueue(pf, csv(FULL, [debtor('u-d1', '100', '0'), debtor('u-d2', '200', '0'), debtor('u-d3', '300', '0')]), 'update'));
    expect(counters(first)).toEqual({ status: 'completed', created: 3, updated: 0, errors: 0, processedRows: 3, totalRows: 3 });
    const before = await live(pf);
    expect(before.debtors).toHaveLength(1);
    expect(before.debts.map((d) => [d.external_id, d.debtor_id, d.total])).toEqual([
      ['u-d1', before.debtors[0].id, 100],
      ['u-d2', before.debtors[0].id, 200],
      ['u-d3', before.debtors[0].id, 300],
    ]);

    const second = await finished(await enqueue(pf, csv(FULL, [debtor('u-d1', '150', '50'), debtor('u-d3', '300', '300'), debtor('u-d4', '400', '0')]), 'update'));
    expect(counters(second)).toEqual({ status: 'completed', created: 1, updated: 2, errors: 0, processedRows: 3, totalRows: 3 });
    const after = await live(pf);
    expect(after.debtors.map((d) => d.id)).toEqual(before.debtors.map((d) => d.id));
    expect(after.debts.map((d) => [d.external_id, d.id, d.total, d.paid, d.status])).toEqual([
      ['u-d1', before.debts[0].id, 150, 50, 'active'],
      ['u-d2', before.debts[1].id, 200, 0, 'active'],
      ['u-d3', before.debts[2].id, 300, 300, 'paid'],
      ['u-d4', expect.any(String), 400, 0, 'active'],
    ]);

    // A row with phones is the full authority on its debtor's numbers: a known number keeps what was
    // learned (here: verified, type), a new one comes from the import, a number not in the row goes.
    const debtorId = before.debtors[0].id;
    await db.query(`UPDATE debtor_phones SET verified = true, type = 'mobile' WHERE debtor_id = $1`, [debtorId]);
    await db.query(`INSERT INTO debtor_phones (id, debtor_id, phone, phone_e164, position, origin) VALUES ($1, $2, '+34600000009', '+34600000009', 1, 'api')`, [`phn_${ulid()}`, debtorId]);
    const header = ['identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1', 'phone_2'];
    const phonesView = await finished(await enqueue(pf, csv(header, [['Ana', 'national_id', 'U1', '+34600000002', '+34 600 000 001']]), 'update', header));
    expect(counters(phonesView)).toEqual({ status: 'completed', created: 0, updated: 1, errors: 0, processedRows: 1, totalRows: 1 });
    const phones = (await db.query('SELECT phone, phone_e164, position, "primary", origin, verified, type FROM debtor_phones WHERE debtor_id = $1 ORDER BY position', [debtorId])).rows;
    expect(phones).toEqual([
      { phone: '+34600000002', phone_e164: '+34600000002', position: 0, primary: true, origin: 'import', verified: false, type: null },
      { phone: '+34 600 000 001', phone_e164: '+34600000001', position: 1, primary: false, origin: 'import', verified: true, type: 'mobile' },
    ]);
  });

  it('reconcile: a live active debt missing from the file becomes paid; a cancelled one is untouched', async () => {
    const pf = await newPortfolio();
    await finished(await enqueue(pf, csv(FULL, [row(1, 'r'), row(2, 'r'), row(3, 'r')]), 'add'));
    await db.query(`UPDATE debts SET status = 'cancelled' WHERE portfolio_id = $1 AND external_id = 'r-d3'`, [pf]);
    const view = await finished(await enqueue(pf, csv(FULL, [row(1, 'r', { paid: '10' })]), 'reconcile'));
    expect(counters(view)).toEqual({ status: 'completed', created: 0, updated: 1, errors: 0, processedRows: 1, totalRows: 1 });
    expect((await live(pf)).debts.map((d) => [d.external_id, d.paid, d.status])).toEqual([
      ['r-d1', 10, 'active'],
      ['r-d2', 100, 'paid'],
      ['r-d3', 0, 'cancelled'],
    ]);
    // A file that maps no debt_external_id says nothing about debts: none becomes paid.
    const header = ['identity_first_name', 'identity_document_type', 'identity_document_number'];
    expect(counters(await finished(await enqueue(pf, csv(header, [['Ana', 'national_id', 'r-D1']]), 'reconcile', header)))).toMatchObject({ status: 'completed', updated: 1 });
    expect((await live(pf)).debts.map((d) => d.status)).toEqual(['active', 'paid', 'cancelled']);
  });

  it('replace is all or nothing: a load that fails mid-way leaves the old set intact; once it can, it swaps', async () => {
    const pf = await newPortfolio();
    await finished(await enqueue(pf, csv(FULL, [row(1, 'old'), row(2, 'old')]), 'add'));
    const old = await live(pf);
    // Row 7 (the third chunk) registers a payment whose file id an uncommitted transaction holds
    // (payments_import_external_id_key): the replace's insert waits for it past its statement
    // timeout, after the old set was soft-deleted and two chunks merged in the replace's transaction.
    const blocker = new Client({ connectionString: stack.databaseUrl });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(
      `INSERT INTO payments (id, portfolio_id, debtor_id, amount, currency, payment_date, source, import_external_id)
       VALUES ($1, $2, $3, 1, 'EUR', '2026-01-01', 'import', 'pay-block')`,
      [`pay_${ulid()}`, pf, old.debtors[0].id],
    );
    const header = [...FULL, 'payment_external_id', 'payment_amount', 'payment_date'];
    const lines = [1, 2, 3, 4, 5, 6].map((i) => [...row(i, 'new'), ...(i === 6 ? ['pay-block', '5', '2026-01-02'] : ['', '', ''])]);
    const importId = await enqueue(pf, csv(header, lines), 'replace', header);
    await importer.waitForLog((l) => l.msg === 'import run failed; it will resume from its checkpoint' && l.importId === importId, 20_000);
    expect(await state(importId)).toMatchObject({ status: 'processing', phase: 'merging', created: 0, processedRows: 0 });
    expect(await live(pf)).toEqual(old);

    await blocker.query('ROLLBACK');
    await blocker.end();
    const done = await finished(importId);
    expect(counters(done)).toEqual({ status: 'completed', created: 6, updated: 0, errors: 0, processedRows: 6, totalRows: 6 });
    const swapped = await live(pf);
    expect(swapped.debtors.map((d) => d.external_id)).toEqual(['new-c1', 'new-c2', 'new-c3', 'new-c4', 'new-c5', 'new-c6']);
    expect(swapped.debts.map((d) => d.external_id)).toEqual(['new-d1', 'new-d2', 'new-d3', 'new-d4', 'new-d5', 'new-d6']);
    const payments = await db.query('SELECT debtor_id, amount::float8 AS amount FROM payments WHERE portfolio_id = $1', [pf]);
    expect(payments.rows).toEqual([{ debtor_id: swapped.debtors[5].id, amount: 5 }]);
    const oldIds = old.debtors.map((d) => d.id);
    const { rows } = await db.query('SELECT count(*)::int AS n FROM debtors WHERE id = ANY($1) AND deleted_at IS NOT NULL', [oldIds]);
    expect(rows[0].n).toBe(oldIds.length);
  }, 60_000);

  it('a file that cannot be parsed ends failed with the line in failureReason; its staging rows are gone', async () => {
    const pf = await newPortfolio();
    const importId = await enqueue(pf, `${csv(FULL, [row(1, 'q'), row(2, 'q'), row(3, 'q')])}q-c4,"Broken,national_id,QX,+34600000004,q-d4,1,0,EUR\n`, 'add');
    const view = await finished(importId);
    expect(view).toMatchObject({
      status: 'failed',
      failureReason: 'the file cannot be read as CSV from record 5 on: Quote Not Closed: the parsing is finished with an opening quote at line 5',
    });
    expect(view.processedRows).toBe(view.created + view.updated + view.errors);
    const { rows } = await db.query('SELECT count(*)::int AS n FROM import_rows WHERE import_id = $1', [importId]);
    expect(rows[0].n).toBe(0);
    // The key is valid for another hour: its file stays (docs/imports.md).
    expect(existsSync(storage.pathOf(view.storageKey))).toBe(true);
  });

  it('a stored file stays while its key is valid; an import ending after the expiry removes it, the sweeper removes the others', async () => {
    const pf = await newPortfolio();
    const expired = await finished(await enqueue(pf, csv(FULL, [row(1, 'f')]), 'add', FULL, "now() - interval '1 minute'"));
    expect(expired.status).toBe('completed');
    // Removed just after the completion commits (never before: a crash in between resumes from the file).
    await eventually(() => expect(existsSync(storage.pathOf(expired.storageKey))).toBe(false), 5_000);

    const valid = await finished(await enqueue(pf, csv(FULL, [row(2, 'f')]), 'add'));
    expect(existsSync(storage.pathOf(valid.storageKey))).toBe(true);
    await db.query(`UPDATE uploads SET expires_at = now() - interval '1 second' WHERE storage_key = $1`, [valid.storageKey]);
    // The sweeper's first pass (at start-up) takes the uploads expired in the last week.
    await importer.stop('SIGTERM');
    importer = await startImporter();
    await eventually(() => expect(existsSync(storage.pathOf(valid.storageKey))).toBe(false), 10_000);
  });

  it('one import is never processed twice at once: while another session holds its lock, it waits', async () => {
    const pf = await newPortfolio();
    const importId = `imp_${ulid()}`;
    const lock = await holdAdvisoryLock(stack.databaseUrl, `import:${importId}`);
    // enqueue() makes its own id: insert by hand with this one.
    const uploadId = `upl_${ulid()}`;
    const storageKey = `portfolios/${pf}/uploads/${uploadId}.csv`;
    await storage.write(storageKey, Readable.from([Buffer.from(csv(FULL, [row(1, 'l')]))]), 1 << 20);
    await db.query(`INSERT INTO uploads (id, portfolio_id, api_key_id, storage_key, expires_at) VALUES ($1, $2, $3, $4, now() + interval '1 hour')`, [uploadId, pf, KEY, storageKey]);
    await db.query(`INSERT INTO imports (id, portfolio_id, upload_id, storage_key, column_mapping, conflict_resolution, delimiter) VALUES ($1, $2, $3, $4, $5, 'add', ',')`, [
      importId, pf, uploadId, storageKey, JSON.stringify(FULL.map((h) => ({ sourceColumn: h, targetField: h }))),
    ]);
    await queue.add(IMPORT_JOB_NAME, { importId }, { ...IMPORT_JOB_OPTIONS, jobId: importId });
    await eventually(async () => expect(await queue.getJobState(importId)).toBe('delayed'), 10_000);
    expect(await state(importId)).toMatchObject({ status: 'queued', checkpointRow: 0 });
    await lock.release();
    // Postponed 10 s while it was busy.
    expect(counters(await finished(importId, 30_000))).toEqual({ status: 'completed', created: 1, updated: 0, errors: 0, processedRows: 1, totalRows: 1 });
  }, 45_000);

  describe('resume', () => {
    const ROWS = 3000;
    const big = () => csv(FULL, Array.from({ length: ROWS }, (_, i) => row(i + 1, 'k')));

    async function expectExactLoad(pf: string, importId: string) {
      expect(counters(await finished(importId, 60_000))).toEqual({ status: 'completed', created: ROWS, updated: 0, errors: 0, processedRows: ROWS, totalRows: ROWS });
      const { rows } = await db.query(
        `SELECT count(*)::int AS debtors, count(DISTINCT external_id)::int AS ids,
           (SELECT count(*)::int FROM debts WHERE portfolio_id = $1) AS debts,
           (SELECT count(DISTINCT external_id)::int FROM debts WHERE portfolio_id = $1) AS debt_ids,
           (SELECT count(*)::int FROM debtor_phones p JOIN debtors d ON d.id = p.debtor_id WHERE d.portfolio_id = $1) AS phones
         FROM debtors WHERE portfolio_id = $1`,
        [pf],
      );
      expect(rows[0]).toEqual({ debtors: ROWS, ids: ROWS, debts: ROWS, debt_ids: ROWS, phones: ROWS });
    }

    it('kill -9 mid-file, restart: the import resumes from its checkpoints and ends with exact counts, no duplicate', async () => {
      await importer.stop('SIGTERM');
      importer = await startImporter({ IMPORT_CHUNK_ROWS: '100' });
      const pf = await newPortfolio();
      const importId = await enqueue(pf, big(), 'add');
      await eventually(async () => expect((await state(importId)).mergedRow).toBeGreaterThan(500), 30_000);
      await importer.stop('SIGKILL');
      const killed = await state(importId);
      expect(killed.status).toBe('processing');
      expect(killed.checkpointRow).toBeLessThan(ROWS + 1);
      // The job's lock expires (15 s) and a stalled-job check hands it to the restarted importer.
      importer = await startImporter({ IMPORT_CHUNK_ROWS: '100' });
      await expectExactLoad(pf, importId);
    }, 90_000);

    it('SIGTERM mid-file: the current chunk commits, the job goes back to the queue, a restart finishes it', async () => {
      const pf = await newPortfolio();
      const importId = await enqueue(pf, big(), 'add');
      await eventually(async () => expect((await state(importId)).mergedRow).toBeGreaterThan(500), 30_000);
      expect(await importer.stop('SIGTERM')).toBe(0);
      const stopped = await state(importId);
      expect(stopped.status).toBe('processing');
      expect(await queue.getJobState(importId)).toMatch(/^(delayed|waiting)$/);
      importer = await startImporter({ IMPORT_CHUNK_ROWS: '100' });
      await expectExactLoad(pf, importId);
    }, 60_000);
  });
});
