import { ApiError } from './api-error';
import { createClient } from './client';
import { importsOf, ImportWaitTimeoutError, type ImportPreviewView, type ImportUploadView, type ImportView } from './imports';

/**
 * The load flow helpers against a fake fetch given in ClientOptions (no network): every request the
 * client sends, the API's and the upload's, goes through it and is answered from `routes`.
 */
const BASE = 'http://api.test/public';
const KEY = 'svc_test_' + 'k'.repeat(43);
const PF = 'pf_01JD0000000000000000000000';
const STORAGE_KEY = `portfolios/${PF}/uploads/upl_01JD0000000000000000000000.csv`;
const CSV = 'Name,Doc type,Doc,Mobile\nAna,national_id,X1,+34600112233\n';

type Route = (request: Request) => Response | Promise<Response>;

function fakeApi(route: Route) {
  const sent: Request[] = [];
  const dc = createClient({
    baseUrl: BASE,
    apiKey: KEY,
    retry: { maxRetries: 0 },
    fetch: async (request) => {
      sent.push(request.clone());
      return route(request);
    },
  });
  return { dc, imports: importsOf(dc), sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const uploadTarget = (over: Partial<ImportUploadView>): ImportUploadView => ({
  storageKey: STORAGE_KEY,
  uploadUrl: 'https://files.test/public/uploads/x.csv?expires=1764003600&signature=6f1c',
  method: 'PUT',
  headers: { 'Content-Type': 'text/csv' },
  fields: {},
  expiresAt: '2026-11-24T17:00:00.000Z',
  maxBytes: 1_073_741_824,
  ...over,
});

const view = (over: Partial<ImportView>): ImportView => ({
  id: 'imp_01JD0000000000000000000000',
  portfolioId: PF,
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
  createdAt: '2026-11-24T16:01:02.345Z',
  updatedAt: '2026-11-24T16:01:02.345Z',
  startedAt: null,
  finishedAt: null,
  ...over,
});

const headersOf = (request: Request) => Object.fromEntries(request.headers);
const MAPPING = [
  { sourceColumn: 'Name', targetField: 'identity_first_name' },
  { sourceColumn: 'Doc type', targetField: 'identity_document_type' },
  { sourceColumn: 'Doc', targetField: 'identity_document_number' },
  { sourceColumn: 'Mobile', targetField: 'phone_1' },
] as const;

describe('importsOf(dc).upload', () => {
  it('PUT: asks upload-url with the API key, then PUTs the bytes to the URL with exactly its headers and no key', async () => {
    const target = uploadTarget({ method: 'PUT' });
    const { imports, sent } = fakeApi((request) =>
      request.url.startsWith(BASE) ? json(201, { data: target }) : new Response(null, { status: 200 }),
    );

    const bytes = new TextEncoder().encode(CSV);
    expect(await imports.upload(PF, bytes, { fileName: 'march.csv' })).toBe(STORAGE_KEY);

    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST ${BASE}/v1/portfolios/${PF}/imports/upload-url`,
      `PUT ${target.uploadUrl}`,
    ]);
    expect(sent[0].headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(await sent[0].json()).toEqual({ fileName: 'march.csv' });
    expect(headersOf(sent[1])).toEqual({ 'content-type': 'text/csv' });
    expect(new Uint8Array(await sent[1].arrayBuffer())).toEqual(bytes);
  });

  it('PUT of a string without fileName: upload-url gets {}', async () => {
    const { imports, sent } = fakeApi((request) =>
      request.url.startsWith(BASE) ? json(201, { data: uploadTarget({}) }) : new Response(null, { status: 200 }),
    );
    expect(await imports.upload(PF, CSV)).toBe(STORAGE_KEY);
    expect(await sent[0].json()).toEqual({});
    expect(await sent[1].text()).toBe(CSV);
  });

  it('POST (S3): a multipart form of every field, as given and in order, then the file as `file`; no key', async () => {
    const fields = {
      key: STORAGE_KEY,
      'Content-Type': 'text/csv',
      bucket: 'dc-imports',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIA…/20261124/eu-west-1/s3/aws4_request',
      'X-Amz-Date': '20261124T160000Z',
      Policy: 'eyJleHBpcmF0aW9uIjoi…',
      'X-Amz-Signature': '9b2d…',
    };
    const target = uploadTarget({ method: 'POST', uploadUrl: 'https://dc-imports.s3.eu-west-1.amazonaws.com/', headers: {}, fields });
    const { imports, sent } = fakeApi((request) =>
      request.url.startsWith(BASE) ? json(201, { data: target }) : new Response(null, { status: 204 }),
    );

    expect(await imports.upload(PF, new Blob([CSV], { type: 'text/csv' }), { fileName: 'march.csv' })).toBe(STORAGE_KEY);

    const upload = sent[1];
    expect(`${upload.method} ${upload.url}`).toBe(`POST ${target.uploadUrl}`);
    expect(Object.keys(headersOf(upload))).toEqual(['content-type']);
    expect(upload.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    const form = await upload.formData();
    expect([...form.keys()]).toEqual([...Object.keys(fields), 'file']);
    for (const [name, value] of Object.entries(fields)) expect(form.get(name)).toBe(value);
    const file = form.get('file') as File;
    expect(file.name).toBe('march.csv');
    expect(await file.text()).toBe(CSV);
  });

  it('a refused upload throws ApiError: the platform envelope (PUT) or S3 XML as unexpected_response (POST)', async () => {
    const refusePut = fakeApi((request) =>
      request.url.startsWith(BASE)
        ? json(201, { data: uploadTarget({}) })
        : json(403, { error: { code: 'forbidden', message: 'The upload URL has expired', requestId: 'req_up' } }),
    );
    await expect(refusePut.imports.upload(PF, CSV)).rejects.toMatchObject({ name: 'ApiError', status: 403, code: 'forbidden', requestId: 'req_up' });

    const xml = '<Error><Code>AccessDenied</Code><Message>Invalid according to Policy</Message></Error>';
    const refusePost = fakeApi((request) =>
      request.url.startsWith(BASE)
        ? json(201, { data: uploadTarget({ method: 'POST', headers: {}, fields: { key: STORAGE_KEY } }) })
        : new Response(xml, { status: 403, headers: { 'content-type': 'application/xml' } }),
    );
    const error = await refusePost.imports.upload(PF, CSV).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: 'unexpected_response', message: `HTTP 403: ${xml}`, body: xml });
  });
});

describe('importsOf(dc).preview', () => {
  it('POSTs {storageKey} and resolves with the preview', async () => {
    const preview: ImportPreviewView = {
      storageKey: STORAGE_KEY,
      delimiter: ',',
      encoding: 'utf-8',
      bom: false,
      header: ['Name', 'Doc type', 'Doc', 'Mobile'],
      sampleRows: [['Ana', 'national_id', 'X1', '+34600112233']],
      rowCount: 1,
      rowCountEstimated: false,
      fileBytes: CSV.length,
      suggestedMapping: [{ sourceColumn: 'Mobile', targetField: 'phone_1', confidence: 0.9, reason: 'E.164 numbers', reasonCode: 'value_pattern' }],
      warnings: [],
      expiresAt: '2026-11-24T17:00:00.000Z',
    };
    const { imports, sent } = fakeApi(() => json(200, { data: preview }));
    expect(await imports.preview(PF, STORAGE_KEY)).toEqual(preview);
    expect(`${sent[0].method} ${sent[0].url}`).toBe(`POST ${BASE}/v1/portfolios/${PF}/imports/preview`);
    expect(await sent[0].json()).toEqual({ storageKey: STORAGE_KEY });
  });
});

describe('importsOf(dc).run', () => {
  it('enqueues (dryRun in the body, the given Idempotency-Key) and polls until completed, resolving with the last view', async () => {
    const polled = [
      view({ status: 'processing', dryRun: true, processedRows: 10, totalRows: 10 }),
      view({ status: 'processing', dryRun: true, processedRows: 30, totalRows: 41 }),
      view({ status: 'completed', dryRun: true, created: 3, updated: 36, unchanged: 30, errors: 2, processedRows: 41, totalRows: 41 }),
    ];
    const { imports, sent } = fakeApi((request) =>
      request.method === 'POST' ? json(202, { data: view({ dryRun: true }) }) : json(200, { data: polled.shift() }),
    );
    const seen: string[] = [];

    const last = await imports.run(
      PF,
      { storageKey: STORAGE_KEY, columnMapping: [...MAPPING], conflictResolution: 'update', dryRun: true, idempotencyKey: 'march-dry-1' },
      { pollIntervalMs: 0, onProgress: (v) => seen.push(`${v.status} ${v.processedRows}`) },
    );

    expect(last).toEqual(view({ status: 'completed', dryRun: true, created: 3, updated: 36, unchanged: 30, errors: 2, processedRows: 41, totalRows: 41 }));
    expect(seen).toEqual(['queued 0', 'processing 10', 'processing 30', 'completed 41']);
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST ${BASE}/v1/portfolios/${PF}/imports`,
      ...Array.from({ length: 3 }, () => `GET ${BASE}/v1/imports/imp_01JD0000000000000000000000`),
    ]);
    expect(await sent[0].json()).toEqual({ storageKey: STORAGE_KEY, columnMapping: MAPPING, conflictResolution: 'update', dryRun: true });
    expect(sent[0].headers.get('idempotency-key')).toBe('march-dry-1');
  });

  it('sends no dryRun nor mode unless given, and resolves (does not throw) with a failed import', async () => {
    const failed = view({ status: 'failed', conflictResolution: 'add', failureReason: 'row 3: unclosed quote' });
    const { imports, sent } = fakeApi((request) =>
      request.method === 'POST' ? json(202, { data: view({ conflictResolution: 'add' }) }) : json(200, { data: failed }),
    );
    expect(await imports.run(PF, { storageKey: STORAGE_KEY, columnMapping: [...MAPPING] }, { pollIntervalMs: 0 })).toEqual(failed);
    expect(await sent[0].json()).toEqual({ storageKey: STORAGE_KEY, columnMapping: MAPPING });
    expect(sent[0].headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives up after timeoutMs with ImportWaitTimeoutError carrying the last view; wait(id) polls it again', async () => {
    const { imports } = fakeApi((request) =>
      request.method === 'POST' ? json(202, { data: view({}) }) : json(200, { data: view({ status: 'processing', processedRows: 5 }) }),
    );
    const error = await imports.run(PF, { storageKey: STORAGE_KEY, columnMapping: [...MAPPING] }, { pollIntervalMs: 5, timeoutMs: 30 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportWaitTimeoutError);
    expect((error as ImportWaitTimeoutError).lastView).toEqual(view({ status: 'processing', processedRows: 5 }));

    const done = fakeApi(() => json(200, { data: view({ status: 'completed', created: 1, processedRows: 1, totalRows: 1 }) }));
    expect(await done.imports.wait('imp_01JD0000000000000000000000', { pollIntervalMs: 0 })).toMatchObject({ status: 'completed', created: 1 });
    expect(done.sent.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${BASE}/v1/imports/imp_01JD0000000000000000000000`]);
  });
});

describe('importsOf(dc).rejectedRows', () => {
  it('streams the CSV body unchanged, BOM and line ends included, chunk by chunk', async () => {
    const text = '\uFEFFName,Mobile,error_row,error_column,error_message\r\nBea,600 11 22,3,Mobile,"""600 11 22"" is not an E.164 number"\r\n' +
      "'=HYPERLINK(\"x\"),+34600112233,4,Name,too long\r\n";
    const bytes = new TextEncoder().encode(text);
    const chunks = [bytes.slice(0, 2), bytes.slice(2, 50), bytes.slice(50)];
    const { imports, sent } = fakeApi(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) }),
          { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="imp_1-rejected-rows.csv"' } },
        ),
    );

    const stream = await imports.rejectedRows('imp_1');
    expect(new Uint8Array(await new Response(stream).arrayBuffer())).toEqual(bytes);
    expect(`${sent[0].method} ${sent[0].url}`).toBe(`GET ${BASE}/v1/imports/imp_1/rejected-rows`);
    expect(sent[0].headers.get('authorization')).toBe(`Bearer ${KEY}`);
  });

  it('throws ApiError from the JSON envelope: 404 not_found', async () => {
    const { imports } = fakeApi(() =>
      json(404, { error: { code: 'not_found', message: 'Import not found', requestId: 'req_01J404' } }, { 'x-request-id': 'req_01J404' }),
    );
    const error = await imports.rejectedRows('imp_missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'Import not found', requestId: 'req_01J404' });
  });
});
