import type { ImportView } from '@dc/contracts';
import {
  createTenant, enqueueImport, getImport, OperatorClient, sendUpload, requestUploadUrl, Stack, Tenant, uploadCsv, withDatabase,
} from '@dc/testing';
import { fixture, IMPORT_ID, ImportClient, importRows, importStackEnv, ISO, mapping, newPortfolio, startImporter } from './import-kit';

/**
 * The portfolio load flow's routes (spec: imports section; docs/imports.md):
 * upload-url, the signed PUT, enqueue with its refusals and Idempotency-Key, GET /v1/imports/{id}
 * and its reach. What a load does to debtors and debts is in imports-modes and imports-files.
 */
describe('portfolio load routes: upload-url, enqueue, GET /v1/imports/{id}', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let other: Tenant;
  let client: ImportClient;

  const MULTI_DEBT = mapping([
    ['debtor_external_id', 'debtor_external_id'],
    ['identity_first_name', 'identity_first_name'],
    ['identity_document_type', 'identity_document_type'],
    ['identity_document_number', 'identity_document_number'],
    ['debt_external_id', 'debt_external_id'],
    ['debt_total_amount', 'debt_total_amount'],
    ['debt_currency', 'debt_currency'],
  ]);
  const requestId = (res: { headers: Headers }) => res.headers.get('x-request-id');
  const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

  beforeAll(async () => {
    stack = await Stack.start({ env: importStackEnv() });
    await startImporter(stack);
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 2 });
    other = await createTenant(operator, { name: 'Other Org' });
    client = new ImportClient(stack, tenant.key);
  }, 60_000);
  afterAll(() => stack?.stop());

  describe('POST /v1/portfolios/{id}/imports/upload-url', () => {
    it('201: the storage key, a signed PUT URL of the gateway, its headers, expiry and size limit; the PUT stores the file (200)', async () => {
      const pf = tenant.portfolioIds[0];
      const before = Date.now();
      const res = await requestUploadUrl(stack.publicUrl, tenant.key, pf, { fileName: 'debtors.csv' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        data: {
          storageKey: expect.stringMatching(new RegExp(`^portfolios/${pf}/uploads/upl_${ULID}\\.csv$`)),
          uploadUrl: expect.any(String),
          method: 'PUT',
          headers: expect.any(Object),
          fields: {},
          expiresAt: ISO,
          maxBytes: 1024 * 1024 * 1024,
        },
      });
      const view = res.body.data;
      // The local driver: the gateway's public base URL, the key, an expiry and a signature (docs/imports.md).
      expect(view.uploadUrl.startsWith(`${stack.publicUrl}/public/uploads/`)).toBe(true);
      expect(new URL(view.uploadUrl).searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
      expect(Object.fromEntries(Object.entries(view.headers).map(([k, v]) => [k.toLowerCase(), v]))).toEqual({ 'content-type': 'text/csv' });
      // Valid for IMPORT_UPLOAD_TTL_SECONDS (3600 by default).
      const ttl = Date.parse(view.expiresAt) - before;
      expect(ttl).toBeGreaterThan(3_590_000);
      expect(ttl).toBeLessThan(3_610_000);
      const put = await sendUpload(view, fixture('ok/multi-debt.csv'));
      expect(put.status).toBe(200);
      const rows = await withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT portfolio_id, file_name, storage_key FROM uploads WHERE storage_key = $1', [view.storageKey])).rows);
      expect(rows).toEqual([{ portfolio_id: pf, file_name: 'debtors.csv', storage_key: view.storageKey }]);
    });

    it('an empty body is fine; each call issues a new key', async () => {
      const a = await requestUploadUrl(stack.publicUrl, tenant.key, tenant.portfolioIds[0]);
      const b = await requestUploadUrl(stack.publicUrl, tenant.key, tenant.portfolioIds[0]);
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.body.data.storageKey).not.toBe(b.body.data.storageKey);
    });

    it('a read-only key is 403 forbidden; a portfolio of another organization or unknown is 404 not_found', async () => {
      const ro = await requestUploadUrl(stack.publicUrl, tenant.readKey, tenant.portfolioIds[0]);
      expect(ro.status).toBe(403);
      expect(ro.body).toEqual({ error: { code: 'forbidden', message: expect.any(String), requestId: requestId(ro) } });
      for (const pf of [other.portfolioIds[0], 'pf_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope']) {
        const res = await requestUploadUrl(stack.publicUrl, tenant.key, pf);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: requestId(res) } });
      }
    });
  });

  describe('POST /v1/portfolios/{id}/imports', () => {
    it('202 with the queued import; GET /v1/imports/{id} shows it processed to completed', async () => {
      const pf = await newPortfolio(operator, tenant.organizationId);
      const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('ok/multi-debt.csv'));
      const res = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: MULTI_DEBT });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        data: {
          id: expect.stringMatching(IMPORT_ID),
          portfolioId: pf,
          status: 'queued',
          conflictResolution: 'add', // the default
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
      const queued = res.body.data;
      const done = await client.wait(queued.id);
      expect(done).toEqual({
        ...queued,
        status: 'completed',
        created: 4,
        processedRows: 4,
        totalRows: 4,
        updatedAt: ISO,
        startedAt: ISO,
        finishedAt: ISO,
      });
      expect(Date.parse(done.startedAt!)).toBeLessThanOrEqual(Date.parse(done.finishedAt!));
      const got = await getImport(stack.publicUrl, tenant.readKey, queued.id);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ data: done });
    });

    it('conflictResolution: each mode is echoed; another value is 400 naming conflictResolution', async () => {
      const pf = await newPortfolio(operator, tenant.organizationId);
      const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('ok/multi-debt.csv'));
      const bad = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: MULTI_DEBT, conflictResolution: 'merge' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toEqual({
        code: 'validation_error',
        message: expect.any(String),
        requestId: requestId(bad),
        issues: [{ path: 'conflictResolution', message: 'conflictResolution must be one of add, update, reconcile, replace' }],
      });
      const update = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: MULTI_DEBT, conflictResolution: 'update' });
      expect(update.status).toBe(202);
      expect(update.body.data.conflictResolution).toBe('update');
      expect((await client.wait(update.body.data.id)).status).toBe('completed');
    });

    describe('storageKey must have been issued by upload-url for this portfolio, unexpired, with its file (400 naming storageKey)', () => {
      let pf: string;
      beforeAll(async () => {
        pf = await newPortfolio(operator, tenant.organizationId);
      });

      async function expectStorageKeyRefused(storageKey: string, message?: string): Promise<void> {
        const before = await importRows(stack, pf);
        const res = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: MULTI_DEBT });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: {
            code: 'validation_error',
            message: expect.any(String),
            requestId: requestId(res),
            issues: [{ path: 'storageKey', message: message ? expect.stringContaining(message) : expect.any(String) }],
          },
        });
        expect(await importRows(stack, pf)).toEqual(before);
      }

      it('an invented key (well-formed, never issued)', async () => {
        await expectStorageKeyRefused(`portfolios/${pf}/uploads/upl_01ARZ3NDEKTSV4RRFFQ69G5FAV.csv`);
        await expectStorageKeyRefused('../../etc/passwd');
      });

      it('an expired key (its file uploaded in time)', async () => {
        const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('ok/multi-debt.csv'));
        // IMPORT_UPLOAD_TTL_SECONDS is at least 10 s; the issued expiry is moved to the past instead of waiting.
        await withDatabase(stack.databaseUrl, (c) => c.query(`UPDATE uploads SET expires_at = now() - interval '1 second' WHERE storage_key = $1`, [storageKey]));
        await expectStorageKeyRefused(storageKey);
      });

      it('a key issued for another portfolio of the organization, or of another organization', async () => {
        await expectStorageKeyRefused(await uploadCsv(stack.publicUrl, tenant.key, tenant.portfolioIds[1], fixture('ok/multi-debt.csv')));
        await expectStorageKeyRefused(await uploadCsv(stack.publicUrl, other.key, other.portfolioIds[0], fixture('ok/multi-debt.csv')));
      });

      it('a key issued whose file was never uploaded', async () => {
        const res = await requestUploadUrl(stack.publicUrl, tenant.key, pf);
        await expectStorageKeyRefused(res.body.data.storageKey);
      });

      it('a file whose header cannot be read: empty, or a column named twice', async () => {
        await expectStorageKeyRefused(await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('not-ok/empty.csv')), 'the file is empty');
        await expectStorageKeyRefused(await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('not-ok/duplicate-header.csv')), 'twice');
      });
    });

    it('a mapping that cannot make a valid row is 400 before anything is queued', async () => {
      const pf = await newPortfolio(operator, tenant.organizationId);
      const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('ok/multi-debt.csv'));
      const cases: [unknown, string][] = [
        [MULTI_DEBT.filter((m) => m.targetField !== 'identity_first_name'), 'columnMapping'],
        [MULTI_DEBT.filter((m) => m.targetField !== 'debt_currency'), 'columnMapping'],
        [[{ sourceColumn: 'Nombre', targetField: 'identity_first_name' }, ...MULTI_DEBT.slice(1)], 'columnMapping[0].sourceColumn'],
        [[{ sourceColumn: 'debtor_external_id', targetField: 'bogus' }, ...MULTI_DEBT.slice(1)], 'columnMapping[0].targetField'],
        [[], 'columnMapping'],
      ];
      for (const [columnMapping, path] of cases) {
        const res = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping });
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({ code: 'validation_error', message: expect.any(String), requestId: requestId(res), issues: expect.any(Array) });
        expect(res.body.error.issues).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
      }
      expect(await importRows(stack, pf)).toEqual([]);
    });

    it('Idempotency-Key: the same request replays the same import (Idempotent-Replayed: true) and enqueues nothing; another body is 409', async () => {
      const pf = await newPortfolio(operator, tenant.organizationId);
      const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('ok/multi-debt.csv'));
      const idempotencyKey = `imp-${Date.now()}`;
      const body = { storageKey, columnMapping: MULTI_DEBT };
      const first = await enqueueImport(stack.publicUrl, tenant.key, pf, body, { idempotencyKey });
      expect(first.status).toBe(202);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await enqueueImport(stack.publicUrl, tenant.key, pf, body, { idempotencyKey });
      expect(again.status).toBe(202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const id = first.body.data.id;
      expect(await importRows(stack, pf)).toEqual([{ id, status: expect.any(String) }]);

      const done = await client.wait(id);
      expect(done).toMatchObject({ status: 'completed', created: 4, updated: 0, errors: 0, processedRows: 4, totalRows: 4 });
      // Processed once: a second run of the same job would have made every debtor and debt twice (mode add).
      await new Promise((r) => setTimeout(r, 1500));
      expect((await getImport(stack.publicUrl, tenant.key, id)).body.data).toEqual(done);
      expect((await client.debtors(pf)).map((d) => d.externalId).sort()).toEqual(['m-1', 'm-2']);
      expect((await client.debts(pf)).map((d) => d.externalId).sort()).toEqual(['m-d1', 'm-d2', 'm-d3', 'm-d4']);

      // Replayed after completion too: the stored 202, not the import's current state.
      const late = await enqueueImport(stack.publicUrl, tenant.key, pf, body, { idempotencyKey });
      expect(late.status).toBe(202);
      expect(late.headers.get('idempotent-replayed')).toBe('true');
      expect(late.body).toEqual(first.body);
      expect(await importRows(stack, pf)).toEqual([{ id, status: 'completed' }]);

      const conflict = await enqueueImport(stack.publicUrl, tenant.key, pf, { ...body, conflictResolution: 'update' }, { idempotencyKey });
      expect(conflict.status).toBe(409);
      expect(conflict.body).toEqual({ error: { code: 'idempotency_conflict', message: expect.any(String), requestId: requestId(conflict) } });

      // Without the header every request enqueues a new import.
      const a = await enqueueImport(stack.publicUrl, tenant.key, pf, { ...body, conflictResolution: 'update' });
      const b = await enqueueImport(stack.publicUrl, tenant.key, pf, { ...body, conflictResolution: 'update' });
      // docs/imports.md: "A key stays usable until it expires: the same file may be loaded again".
      expect([a.status, b.status]).toEqual([202, 202]);
      expect(a.body.data.id).not.toBe(b.body.data.id);
      expect((await importRows(stack, pf)).map((r) => r.id).sort()).toEqual([id, a.body.data.id, b.body.data.id].sort());
      for (const view of [a.body.data, b.body.data] as ImportView[]) {
        expect(await client.wait(view.id)).toMatchObject({ status: 'completed', created: 0, updated: 4, errors: 0 });
      }
    });

    it('an Idempotency-Key over 255 characters is 400 before anything is queued', async () => {
      const pf = await newPortfolio(operator, tenant.organizationId);
      const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('ok/multi-debt.csv'));
      const res = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: MULTI_DEBT }, { idempotencyKey: 'k'.repeat(256) });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(await importRows(stack, pf)).toEqual([]);
    });

    it('a read-only key is 403; a portfolio of another organization is 404', async () => {
      const pf = tenant.portfolioIds[0];
      const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, fixture('ok/multi-debt.csv'));
      const ro = await enqueueImport(stack.publicUrl, tenant.readKey, pf, { storageKey, columnMapping: MULTI_DEBT });
      expect(ro.status).toBe(403);
      expect(ro.body.error.code).toBe('forbidden');
      const foreign = await enqueueImport(stack.publicUrl, tenant.key, other.portfolioIds[0], { storageKey, columnMapping: MULTI_DEBT });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: requestId(foreign) } });
      expect(await importRows(stack, other.portfolioIds[0])).toEqual([]);
    });
  });

  describe('GET /v1/imports/{id}: reach', () => {
    let importId: string;
    beforeAll(async () => {
      const storageKey = await uploadCsv(stack.publicUrl, tenant.key, tenant.portfolioIds[1], fixture('ok/multi-debt.csv'));
      importId = (await client.enqueue(tenant.portfolioIds[1], storageKey, MULTI_DEBT)).id;
      await client.wait(importId);
    });

    it("another organization's import is 404 not_found, like an unknown or malformed id", async () => {
      for (const [key, id] of [
        [other.key, importId],
        [other.readKey, importId],
        [tenant.key, 'imp_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
        [tenant.key, 'nope'],
      ]) {
        const res = await getImport(stack.publicUrl, key, id);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: requestId(res) } });
      }
      expect((await getImport(stack.publicUrl, tenant.readKey, importId)).status).toBe(200);
    });

    it("a key restricted to other portfolios gets 404 for the import; one that includes its portfolio gets it", async () => {
      const created = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'narrow' });
      await operator.expect(200, 'PATCH', `/api-keys/${created.data.id}`, { portfolioIds: [tenant.portfolioIds[0]] });
      const narrow = await getImport(stack.publicUrl, created.data.key, importId);
      expect(narrow.status).toBe(404);
      expect(narrow.body.error.code).toBe('not_found');
      const wide = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'wide' });
      await operator.expect(200, 'PATCH', `/api-keys/${wide.data.id}`, { portfolioIds: [tenant.portfolioIds[1]] });
      expect((await getImport(stack.publicUrl, wide.data.key, importId)).status).toBe(200);
    });
  });
});
