import { IMPORT_FIELDS, IMPORTS_QUEUE, ImportUploadView } from '@dc/contracts';
import { bullPrefix } from '@dc/config';
import { LocalDiskStorage } from '@dc/storage';
import { createTenant, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import { Queue } from 'bullmq';
import { Readable } from 'node:stream';
import request from 'supertest';

/**
 * The API side of the portfolio load flow (docs/imports.md): upload-url,
 * every refusal of POST imports before anything is queued, the queued import and its BullMQ job,
 * Idempotency-Key, and GET /v1/imports/{id}'s reach. No importer runs here: jobs stay in Redis.
 */
describe('imports: upload-url, enqueue, GET /v1/imports/{id}', () => {
  const TTL_SECONDS = 900;
  const MAX_BYTES = 4_000;
  const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  const IMPORT_ID = expect.stringMatching(/^imp_[0-9A-HJKMNP-TV-Z]{26}$/);

  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let other: Tenant;
  let pf: string;
  let queue: Queue;

  beforeAll(async () => {
    stack = await Stack.start({
      env: {
        IMPORT_UPLOAD_TTL_SECONDS: String(TTL_SECONDS),
        IMPORT_MAX_FILE_BYTES: String(MAX_BYTES),
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 2 });
    other = await createTenant(operator, { name: 'Other Collections' });
    pf = tenant.portfolioIds[0];
    queue = new Queue(IMPORTS_QUEUE, { connection: { host: '127.0.0.1', port: 6379 }, prefix: bullPrefix({ keyPrefix: stack.env.REDIS_KEY_PREFIX }) });
  });
  afterAll(async () => {
    await queue?.close();
    await stack?.stop();
  });

  const q = async (text: string, params: unknown[] = []) => withDatabase(stack.databaseUrl, async (c) => (await c.query(text, params)).rows);

  function expectError(res: request.Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual(expect.objectContaining({ code, message: expect.any(String), requestId: res.headers['x-request-id'] }));
  }

  /** The storageKey refusal: 400 validation_error whose one issue names storageKey. */
  function expectKeyRefused(res: request.Response, message: RegExp) {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.issues).toEqual([{ path: 'storageKey', message: expect.stringMatching(message) }]);
    expect(res.body.error.message).toBe(res.body.error.issues[0].message);
  }

  const requestUploadUrl = (key: string, portfolioId: string, body?: object) => {
    const req = request(stack.publicUrl).post(`/public/v1/portfolios/${portfolioId}/imports/upload-url`).set('Authorization', `Bearer ${key}`);
    return body === undefined ? req : req.send(body);
  };

  async function uploadUrl(key = tenant.key, portfolioId = pf): Promise<ImportUploadView> {
    const res = await requestUploadUrl(key, portfolioId);
    expect(res.status).toBe(201);
    return res.body.data;
  }

  /** A storageKey of `portfolioId` with `content` uploaded the way a client does it: the returned method, URL and headers, no API key. */
  async function uploaded(content: string, portfolioId = pf, key = tenant.key): Promise<string> {
    const target = await uploadUrl(key, portfolioId);
    const url = new URL(target.uploadUrl);
    expect(target.method).toBe('PUT');
    const put = await request(url.origin).put(`${url.pathname}${url.search}`).set(target.headers).send(Buffer.from(content));
    expect(put.status).toBe(200);
    return target.storageKey;
  }

  const CSV = 'ext;first;doc_type;doc_number;phone;debt;amount;currency\nc1;Ana;national_id;D1;+34600112233;d1;100.50;EUR\n';
  const MAPPING = [
    { sourceColumn: 'ext', targetField: 'debtor_external_id' },
    { sourceColumn: 'first', targetField: 'identity_first_name' },
    { sourceColumn: 'doc_type', targetField: 'identity_document_type' },
    { sourceColumn: 'doc_number', targetField: 'identity_document_number' },
    { sourceColumn: 'phone', targetField: 'phone_1' },
    { sourceColumn: 'debt', targetField: 'debt_external_id' },
    { sourceColumn: 'amount', targetField: 'debt_total_amount' },
    { sourceColumn: 'currency', targetField: 'debt_currency' },
  ];
  const enqueue = (body: object, options: { key?: string; portfolioId?: string; idempotencyKey?: string } = {}) => {
    const req = request(stack.publicUrl)
      .post(`/public/v1/portfolios/${options.portfolioId ?? pf}/imports`)
      .set('Authorization', `Bearer ${options.key ?? tenant.key}`);
    if (options.idempotencyKey !== undefined) void req.set('Idempotency-Key', options.idempotencyKey);
    return req.send(body);
  };
  const getImport = (key: string, id: string) => request(stack.publicUrl).get(`/public/v1/imports/${id}`).set('Authorization', `Bearer ${key}`);
  const importCount = async (portfolioId = pf) => (await q('SELECT count(*)::int AS n FROM imports WHERE portfolio_id = $1', [portfolioId]))[0].n as number;

  describe('POST /v1/portfolios/{id}/imports/upload-url', () => {
    it('201: a storageKey of the portfolio, a signed PUT URL under PUBLIC_BASE_URL, its headers, expiry and size limit; the upload is recorded', async () => {
      const before = Date.now();
      const res = await request(stack.publicUrl)
        .post(`/public/v1/portfolios/${pf}/imports/upload-url`)
        .set('Authorization', `Bearer ${tenant.key}`)
        .send({ fileName: 'march.csv' });
      expect(res.status).toBe(201);
      const data = res.body.data as ImportUploadView;
      expect(Object.keys(data)).toEqual(['storageKey', 'uploadUrl', 'method', 'headers', 'fields', 'expiresAt', 'maxBytes']);
      expect(data.storageKey).toMatch(new RegExp(`^portfolios/${pf}/uploads/upl_[0-9A-HJKMNP-TV-Z]{26}\\.csv$`));
      expect(data.uploadUrl).toMatch(new RegExp(`^${stack.env.PUBLIC_BASE_URL}/public/uploads/${encodeURIComponent(data.storageKey)}\\?expires=\\d+&signature=[0-9a-f]{64}$`));
      expect(data.method).toBe('PUT');
      expect(data.headers).toEqual({ 'Content-Type': 'text/csv' });
      expect(data.fields).toEqual({});
      expect(data.maxBytes).toBe(MAX_BYTES);
      const expiresAt = Date.parse(data.expiresAt);
      expect(data.expiresAt).toEqual(ISO);
      expect(expiresAt).toBeGreaterThanOrEqual(before + TTL_SECONDS * 1000 - 1000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + TTL_SECONDS * 1000 + 1000);
      expect(Number(new URL(data.uploadUrl).searchParams.get('expires'))).toBe(Math.floor(expiresAt / 1000));

      const me = await request(stack.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${tenant.key}`);
      const [row] = await q('SELECT id, portfolio_id, api_key_id, file_name, expires_at FROM uploads WHERE storage_key = $1', [data.storageKey]);
      expect(row).toEqual({
        id: data.storageKey.split('/').pop()!.replace(/\.csv$/, ''),
        portfolio_id: pf,
        api_key_id: me.body.data.apiKey.id,
        file_name: 'march.csv',
        expires_at: new Date(data.expiresAt),
      });
    });

    it('the body is optional: none at all, an empty one with a JSON content type, or {}', async () => {
      const url = `/public/v1/portfolios/${pf}/imports/upload-url`;
      const none = await request(stack.publicUrl).post(url).set('Authorization', `Bearer ${tenant.key}`);
      const empty = await request(stack.publicUrl).post(url).set('Authorization', `Bearer ${tenant.key}`).set('Content-Type', 'application/json');
      const object = await request(stack.publicUrl).post(url).set('Authorization', `Bearer ${tenant.key}`).send({});
      for (const res of [none, empty, object]) {
        expect(res.status).toBe(201);
        expect(res.body.data.method).toBe('PUT');
      }
      expect(new Set([none, empty, object].map((r) => r.body.data.storageKey)).size).toBe(3);
      expect(await q('SELECT file_name FROM uploads WHERE storage_key = $1', [none.body.data.storageKey])).toEqual([{ file_name: null }]);
    });

    it('400 for an unknown field or a fileName that is not text', async () => {
      for (const body of [{ name: 'x.csv' }, { fileName: 7 }, { fileName: '' }]) {
        expectError(await requestUploadUrl(tenant.key, pf, body), 400, 'validation_error');
      }
    });

    it('403 for a read-only key; 404 for another organization\'s portfolio, one outside the key\'s list, or a malformed id', async () => {
      expectError(await requestUploadUrl(tenant.readKey, pf), 403, 'forbidden');
      expectError(await requestUploadUrl(tenant.key, other.portfolioIds[0]), 404, 'not_found');
      const narrow = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { scopes: ['read', 'write'], portfolioIds: [tenant.portfolioIds[1]] });
      expectError(await requestUploadUrl(narrow.data.key, pf), 404, 'not_found');
      expectError(await requestUploadUrl(tenant.key, 'pf_nope'), 404, 'not_found');
      expect(await q('SELECT 1 FROM uploads WHERE portfolio_id = $1', [other.portfolioIds[0]])).toEqual([]);
    });
  });

  describe('POST /v1/portfolios/{id}/imports: refusals, nothing queued', () => {
    it('an invented key, or one in this portfolio\'s shape that was never issued', async () => {
      for (const storageKey of ['whatever.csv', `portfolios/${pf}/uploads/upl_01JD0000000000000000000000.csv`, '../../etc/passwd']) {
        expectKeyRefused(await enqueue({ storageKey, columnMapping: MAPPING }), /^storageKey was not issued by upload-url for this portfolio$/);
      }
    });

    it('a key issued for another portfolio of the organization, or for another organization', async () => {
      const sibling = await uploaded(CSV, tenant.portfolioIds[1]);
      expectKeyRefused(await enqueue({ storageKey: sibling, columnMapping: MAPPING }), /^storageKey was not issued by upload-url for this portfolio$/);
      const theirs = await uploaded(CSV, other.portfolioIds[0], other.key);
      expectKeyRefused(await enqueue({ storageKey: theirs, columnMapping: MAPPING }), /^storageKey was not issued by upload-url for this portfolio$/);
      // And the other organization cannot use this portfolio's key through its own portfolio either.
      const mine = await uploaded(CSV);
      expectKeyRefused(await enqueue({ storageKey: mine, columnMapping: MAPPING }, { key: other.key, portfolioId: other.portfolioIds[0] }), /was not issued/);
    });

    it('an expired key, even with its file uploaded', async () => {
      const storageKey = await uploaded(CSV);
      await q(`UPDATE uploads SET expires_at = now() - interval '1 second' WHERE storage_key = $1`, [storageKey]);
      const res = await enqueue({ storageKey, columnMapping: MAPPING });
      expectKeyRefused(res, /^storageKey expired at \d{4}-\d{2}-\d{2}T[\d:.]+Z: request a new upload-url and upload the file again$/);
    });

    it('a key with no file uploaded under it', async () => {
      const { storageKey } = await uploadUrl();
      expectKeyRefused(await enqueue({ storageKey, columnMapping: MAPPING }), /^no file has been uploaded under this storageKey/);
    });

    it('a file larger than IMPORT_MAX_FILE_BYTES (stored by a route that did not check it)', async () => {
      const { storageKey } = await uploadUrl();
      // The gateway's route refuses such a PUT; a file may still arrive another way (an S3 PUT without a signed length).
      const storage = new LocalDiskStorage({ dir: stack.storageDir, signingKey: Buffer.alloc(32), publicBaseUrl: stack.env.PUBLIC_BASE_URL });
      await storage.write(storageKey, Readable.from([CSV + 'x'.repeat(MAX_BYTES)]), 10 * MAX_BYTES);
      expectKeyRefused(
        await enqueue({ storageKey, columnMapping: MAPPING }),
        new RegExp(`^the file uploaded under this storageKey has ${CSV.length + MAX_BYTES} bytes, more than the limit of ${MAX_BYTES} bytes$`),
      );
    });

    it('a file whose header cannot be read: empty, blank first line, a column without a name, a name twice', async () => {
      const cases: [string, RegExp][] = [
        ['', /cannot be read as CSV: the file is empty/],
        ['\n\nfirst,doc\n', /cannot be read as CSV: the file is empty/],
        ['first,,doc\nAna,x,1\n', /cannot be read as CSV: column 2 of the header has no name/],
        ['first,doc,first\n', /cannot be read as CSV: the header names the column "first" twice/],
      ];
      for (const [content, message] of cases) {
        const storageKey = await uploaded(content);
        expectKeyRefused(await enqueue({ storageKey, columnMapping: MAPPING }), message);
      }
    });

    it('a mapping that cannot make a valid row: 400 with issues under columnMapping', async () => {
      const storageKey = await uploaded(CSV);
      const without = (field: string) => MAPPING.filter((m) => m.targetField !== field);

      const unknown = await enqueue({ storageKey, columnMapping: [...MAPPING.slice(0, 7), { sourceColumn: 'currency', targetField: 'debt_money' }] });
      expectError(unknown, 400, 'validation_error');
      expect(unknown.body.error.issues).toEqual([{ path: 'columnMapping[7].targetField', message: expect.stringContaining(`must be null or one of ${IMPORT_FIELDS.join(', ')}`) }]);

      const identity = await enqueue({ storageKey, columnMapping: without('identity_document_number') });
      expectError(identity, 400, 'validation_error');
      expect(identity.body.error.issues).toEqual([
        { path: 'columnMapping', message: 'every row needs identity_first_name, identity_document_type, identity_document_number: map a column to identity_document_number' },
      ]);

      const absent = await enqueue({ storageKey, columnMapping: [...MAPPING, { sourceColumn: 'Email', targetField: 'email_1' }] });
      expectError(absent, 400, 'validation_error');
      expect(absent.body.error.issues).toEqual([
        { path: 'columnMapping[8].sourceColumn', message: 'the file has no column "Email" (its header: ext, first, doc_type, doc_number, phone, debt, amount, currency)' },
      ]);

      const currency = await enqueue({ storageKey, columnMapping: without('debt_currency') });
      expectError(currency, 400, 'validation_error');
      expect(currency.body.error.issues).toEqual([
        { path: 'columnMapping', message: 'a row\'s debt needs debt_external_id, debt_total_amount, debt_currency: map a column to debt_currency' },
      ]);

      const twice = await enqueue({ storageKey, columnMapping: [...without('phone_1'), { sourceColumn: 'phone', targetField: 'identity_first_name' }] });
      expectError(twice, 400, 'validation_error');
      expect(twice.body.error.issues).toEqual([{ path: 'columnMapping[7].targetField', message: 'identity_first_name is already the target of columnMapping[1]' }]);
      expect(twice.body.error.message).toBe('identity_first_name is already the target of columnMapping[1]');

      const two = await enqueue({ storageKey, columnMapping: [{ sourceColumn: 'nope', targetField: null }] });
      expect(two.body.error.issues).toHaveLength(2);
      expect(two.body.error.message).toMatch(/^2 problems: the file has no column "nope" .*; every row needs /);
    });

    it('body shape: storageKey and columnMapping required, conflictResolution one of the modes', async () => {
      const storageKey = await uploaded(CSV);
      const missing = await enqueue({});
      expectError(missing, 400, 'validation_error');
      expect(missing.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['storageKey', 'columnMapping']);
      const empty = await enqueue({ storageKey, columnMapping: [] });
      expect(empty.body.error.issues).toEqual([{ path: 'columnMapping', message: 'columnMapping must map at least one column' }]);
      const mode = await enqueue({ storageKey, columnMapping: MAPPING, conflictResolution: 'merge' });
      expect(mode.body.error.issues).toEqual([{ path: 'conflictResolution', message: 'conflictResolution must be one of add, update, reconcile, replace' }]);
    });

    it('403 for a read-only key; 404 for another organization\'s portfolio or a malformed id; nothing recorded', async () => {
      const storageKey = await uploaded(CSV);
      expectError(await enqueue({ storageKey, columnMapping: MAPPING }, { key: tenant.readKey }), 403, 'forbidden');
      expectError(await enqueue({ storageKey, columnMapping: MAPPING }, { portfolioId: other.portfolioIds[0] }), 404, 'not_found');
      expectError(await enqueue({ storageKey, columnMapping: MAPPING }, { portfolioId: 'pf_x' }), 404, 'not_found');
    });

    it('none of the refusals above recorded an import or queued a job', async () => {
      expect(await importCount()).toBe(0);
      expect(await queue.count()).toBe(0);
    });
  });

  describe('POST /v1/portfolios/{id}/imports: accepted', () => {
    it('202 with the import queued, counters at 0; the row holds the mapping, mode, delimiter and header; one BullMQ job, id = import id', async () => {
      const storageKey = await uploaded(CSV);
      const res = await enqueue({ storageKey, columnMapping: MAPPING, conflictResolution: 'update' });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        data: {
          id: IMPORT_ID,
          portfolioId: pf,
          status: 'queued',
          conflictResolution: 'update',
          dryRun: false,
          created: 0,
          updated: 0,
          unchanged: 0,
          errors: 0,
          markedPaid: 0,
          deleted: 0,
          processedRows: 0,
          paymentsRegistered: 0,
          paymentsSkipped: 0,
          totalRows: 0,
          errorDetails: [],
          failureReason: null,
          createdAt: ISO,
          updatedAt: ISO,
          startedAt: null,
          finishedAt: null,
        },
      });
      const id = res.body.data.id as string;
      const [row] = await q('SELECT storage_key, upload_id, column_mapping, delimiter, header, phase, checkpoint_row, merged_row FROM imports WHERE id = $1', [id]);
      expect(row).toEqual({
        storage_key: storageKey,
        upload_id: storageKey.split('/').pop()!.replace(/\.csv$/, ''),
        column_mapping: MAPPING,
        delimiter: ';',
        // The rejected-rows file's first line.
        header: ['ext', 'first', 'doc_type', 'doc_number', 'phone', 'debt', 'amount', 'currency'],
        phase: 'reading',
        checkpoint_row: 0,
        merged_row: 0,
      });
      const job = await queue.getJob(id);
      expect(job).toBeDefined();
      expect(job!.name).toBe('import');
      // The worker logs with the enqueuing request's id; it yields to another organization's import (docs/adr/0043).
      expect(job!.data).toEqual({ importId: id, organizationId: tenant.organizationId, requestId: res.headers['x-request-id'] });
      // Its priority is its place among the organization's unfinished imports (no importer runs in this file).
      const [{ place }] = await q(
        `SELECT count(*)::int AS place FROM imports i JOIN portfolios p ON p.id = i.portfolio_id
         WHERE p.organization_id = $1 AND i.status IN ('queued', 'processing') AND i.id <= $2`,
        [tenant.organizationId, id],
      );
      expect(job!.opts.priority).toBe(place);
      expect(await job!.getState()).toBe('prioritized');
    });

    it('conflictResolution defaults to add; a null targetField discards a column', async () => {
      const storageKey = await uploaded(CSV);
      const res = await enqueue({ storageKey, columnMapping: [...MAPPING, { sourceColumn: 'ext', targetField: null }].filter((m, i) => i !== 0) });
      expect(res.status).toBe(202);
      expect(res.body.data.conflictResolution).toBe('add');
    });

    it('without Idempotency-Key every request enqueues a new import, also of a key enqueued before (another mode, for example)', async () => {
      const storageKey = await uploaded(CSV);
      const answers = await Promise.all(['add', 'update', 'update'].map((mode) => enqueue({ storageKey, columnMapping: MAPPING, conflictResolution: mode })));
      expect(answers.map((r) => r.status)).toEqual([202, 202, 202]);
      const ids = answers.map((r) => r.body.data.id as string);
      expect(new Set(ids).size).toBe(3);
      expect(await q('SELECT id, conflict_resolution FROM imports WHERE storage_key = $1 ORDER BY id', [storageKey])).toEqual(
        answers.map((r) => ({ id: r.body.data.id, conflict_resolution: r.body.data.conflictResolution })).sort((a, b) => a.id.localeCompare(b.id)),
      );
      for (const [i, id] of ids.entries()) {
        expect((await queue.getJob(id))!.data).toEqual({ importId: id, organizationId: tenant.organizationId, requestId: answers[i].headers['x-request-id'] });
      }
    });

    it('Idempotency-Key: a replay answers the same import with Idempotent-Replayed and queues nothing; another body is 409', async () => {
      const storageKey = await uploaded(CSV);
      const key = `imp-${Date.now()}`;
      const body = { storageKey, columnMapping: MAPPING };
      const first = await enqueue(body, { idempotencyKey: key });
      expect(first.status).toBe(202);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const imports = await importCount();
      const jobs = await queue.count();

      const replay = await enqueue(body, { idempotencyKey: key });
      expect(replay.status).toBe(202);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(await importCount()).toBe(imports);
      expect(await queue.count()).toBe(jobs);

      const conflict = await enqueue({ ...body, conflictResolution: 'replace' }, { idempotencyKey: key });
      expectError(conflict, 409, 'idempotency_conflict');
      const elsewhere = await enqueue(body, { idempotencyKey: key, portfolioId: tenant.portfolioIds[1] });
      expectError(elsewhere, 409, 'idempotency_conflict');
      expect(await importCount()).toBe(imports);
    });
  });

  describe('GET /v1/imports/{id}', () => {
    let importId: string;
    let accepted: unknown;

    beforeAll(async () => {
      const res = await enqueue({ storageKey: await uploaded(CSV), columnMapping: MAPPING });
      importId = res.body.data.id;
      accepted = res.body;
    });

    it('200 with the import as enqueue answered it, for the owner (a read key is enough)', async () => {
      for (const key of [tenant.key, tenant.readKey]) {
        const res = await getImport(key, importId);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(accepted);
      }
    });

    it('404 for another organization, for a key whose list leaves the portfolio out, for an unknown or malformed id', async () => {
      const narrow = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { portfolioIds: [tenant.portfolioIds[1]] });
      for (const [key, id] of [
        [other.key, importId],
        [narrow.data.key, importId],
        [tenant.key, 'imp_01JD0000000000000000000000'],
        [tenant.key, 'imp_nope'],
        [tenant.key, 'upl_01JD0000000000000000000000'],
      ]) {
        const res = await getImport(key, id);
        expectError(res, 404, 'not_found');
        expect(res.body.error.message).toBe('The import does not exist or is not visible to this API key.');
      }
    });
  });

  describe('the job queue unreachable', () => {
    it('503 service_unavailable, the import failed with its reason; the same key is accepted once the queue is back', async () => {
      const storageKey = await uploaded(CSV);
      // Only api-core loses Redis: the gateway's rate limit and idempotency records still work.
      await stack.apiCores[0].stop();
      const cut = await stack.startService('api-core', { REDIS_URL: 'redis://127.0.0.1:1' });
      await cut.waitForLog((l) => l.msg === 'api-core ready');

      const refused = await enqueue({ storageKey, columnMapping: MAPPING });
      expectError(refused, 503, 'service_unavailable');
      expect(refused.body.error.message).toMatch(/^The import imp_\w+ could not be queued; enqueue the file again/);
      expect(refused.headers['retry-after']).toBe('5');
      const [failed] = await q('SELECT id, status, failure_reason, started_at FROM imports WHERE storage_key = $1', [storageKey]);
      expect(failed).toEqual({ id: IMPORT_ID, status: 'failed', failure_reason: 'could not be queued; enqueue the file again', started_at: null });
      const view = await getImport(tenant.key, failed.id);
      expect(view.body.data).toEqual(expect.objectContaining({ status: 'failed', failureReason: 'could not be queued; enqueue the file again', finishedAt: ISO }));
      expect(await queue.getJob(failed.id)).toBeUndefined();

      expect(await cut.stop()).toBe(0); // a graceful exit with the queue's connection never ready
      await stack.startApiCore();
      const accepted = await enqueue({ storageKey, columnMapping: MAPPING });
      expect(accepted.status).toBe(202);
      expect(accepted.body.data.id).not.toBe(failed.id);
      expect((await queue.getJob(accepted.body.data.id))!.data).toEqual({
        importId: accepted.body.data.id, organizationId: tenant.organizationId, requestId: accepted.headers['x-request-id'],
      });
    });
  });
});
