import { loadConfig } from '@dc/config';
import { LocalDiskStorage, signUpload, UploadTarget } from '@dc/storage';
import { eventually, Stack } from '@dc/testing';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';

interface PutResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Whether the body went on the wire (with Expect: 100-continue, only once the server asked). */
  bodySent: boolean;
}

/**
 * One PUT with full control of the headers: the body as a buffer (Content-Length unless
 * `chunked`) or a stream; with `expectContinue` the body waits for 100 Continue.
 */
function put(url: string, headers: Record<string, string>, body: Buffer | Readable, options: { expectContinue?: boolean; chunked?: boolean } = {}): Promise<PutResult> {
  return new Promise((resolve, reject) => {
    let bodySent = false;
    let answered = false;
    const req = http.request(url, {
      method: 'PUT',
      headers: {
        ...(Buffer.isBuffer(body) && !options.chunked ? { 'content-length': String(body.length) } : {}),
        ...(options.expectContinue ? { expect: '100-continue' } : {}),
        ...headers,
      },
    });
    const send = () => {
      bodySent = true;
      if (Buffer.isBuffer(body)) req.end(body);
      else body.pipe(req);
    };
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bodySent }));
      res.on('error', reject);
    });
    req.on('error', (err) => (answered ? undefined : reject(err)));
    if (options.expectContinue) req.on('continue', send);
    else send();
  });
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every file below `dir` (temporary ones included), relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

function envelope(status: string, code: string, message: string | RegExp, res: PutResult) {
  expect(res.status).toBe(Number(status));
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(JSON.parse(res.text)).toEqual({ error: { code, message, requestId: res.headers['x-request-id'] } });
}

const CSV = 'document,name,amount\n12345678,"Ana, María",10.50\r\n87654321,Bob,3\r\n';
const SIGNATURE_MESSAGE = 'The upload URL is not valid: its signature does not match. Use the URL exactly as upload-url returned it.';

describe('PUT /public/uploads/<key> (local storage driver)', () => {
  let stack: Stack;
  /** The storage as api-core configures it from the same environment: signs URLs, reads files. */
  let storage: LocalDiskStorage;
  let n = 0;
  const newKey = () => `portfolios/pf_01JTESTPORTFOLIO0000000000/uploads/upl_01JTESTUPLOAD${String(++n).padStart(13, '0')}.csv`;
  const target = (key: string, expiresInMs = 60_000): Promise<UploadTarget> =>
    storage.uploadTarget(key, { expiresAt: new Date(Date.now() + expiresInMs), contentType: 'text/csv', maxBytes: 1024 });

  beforeAll(async () => {
    stack = await Stack.start({ env: { IMPORT_MAX_FILE_BYTES: String(25 * 1024 * 1024) } });
    storage = LocalDiskStorage.fromConfig(loadConfig('api-core', stack.env));
  });
  afterAll(() => stack?.stop());

  it('the upload URL points at the first gateway, in the stack directory', async () => {
    expect(storage.dir).toBe(stack.storageDir);
    const key = newKey();
    expect((await target(key)).url.startsWith(`${stack.publicUrl}/public/uploads/${encodeURIComponent(key)}?expires=`)).toBe(true);
  });

  it('stores a signed PUT of a CSV with the same bytes: 200, empty body; logged without the signature', async () => {
    const key = newKey();
    const { url, method, headers } = await target(key);
    const res = await fetch(url, { method, headers, body: CSV });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await readFile(storage.pathOf(key), 'utf8')).toBe(CSV);
    expect(await storage.stat(key)).toEqual({ sizeBytes: Buffer.byteLength(CSV), version: expect.any(String) });

    const logs = stack.gateways[0].process.logs;
    await eventually(() =>
      expect(logs.find((l) => l.msg === 'upload stored' && l.storageKey === key)).toEqual(expect.objectContaining({ requestId: res.headers.get('x-request-id'), bytes: Buffer.byteLength(CSV), ms: expect.any(Number) })),
    );
    const signature = new URL(url).searchParams.get('signature')!;
    expect(logs.filter((l) => JSON.stringify(l).includes(signature))).toEqual([]);
  });

  it('lets a second PUT to the same URL replace the file while the URL is valid', async () => {
    const key = newKey();
    const { url, method, headers } = await target(key);
    expect((await fetch(url, { method, headers, body: 'a\n1\n' })).status).toBe(200);
    expect((await fetch(url, { method, headers, body: 'a\n2\n3\n' })).status).toBe(200);
    expect(await readFile(storage.pathOf(key), 'utf8')).toBe('a\n2\n3\n');
  });

  it('needs no API key and accepts text/csv with parameters', async () => {
    const key = newKey();
    const { url } = await target(key);
    const res = await put(url, { 'content-type': 'Text/CSV; charset=utf-8' }, Buffer.from(CSV));
    expect(res.status).toBe(200);
    // The API itself still wants its key.
    expect((await fetch(`${stack.publicUrl}/public/v1/me`)).status).toBe(401);
  });

  describe('refusals, in order: signature, expiry, key, Content-Type, size', () => {
    it.each([
      ['a changed signature', (u: URL) => u.searchParams.set('signature', u.searchParams.get('signature')!.replace(/^./, (c) => (c === '0' ? '1' : '0')))],
      ['no signature', (u: URL) => u.searchParams.delete('signature')],
      ['a later expiry', (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))],
      ['no expiry', (u: URL) => u.searchParams.delete('expires')],
      ['another key', (u: URL) => (u.pathname = u.pathname.replace(/upl_[0-9A-Z]+/, 'upl_01JTESTOTHER0000000000000'))],
      ['the signature twice', (u: URL) => u.searchParams.append('signature', u.searchParams.get('signature')!)],
    ])('%s: 403 forbidden, nothing stored', async (_what, tamper) => {
      const key = newKey();
      const url = new URL((await target(key)).url);
      tamper(url);
      const res = await put(url.toString(), { 'content-type': 'text/csv' }, Buffer.from(CSV));
      envelope('403', 'forbidden', SIGNATURE_MESSAGE, res);
      expect(await storage.stat(key)).toBeNull();
    });

    it('an expired URL: 403 forbidden naming upload-url', async () => {
      const key = newKey();
      const expires = Math.floor(Date.now() / 1000) - 1;
      const url = `${stack.publicUrl}/public/uploads/${encodeURIComponent(key)}?expires=${expires}&signature=${signUpload(key, expires, loadConfig('api-core', stack.env).storage.local.signingKey)}`;
      const res = await put(url, { 'content-type': 'text/csv' }, Buffer.from(CSV));
      envelope(
        '403',
        'forbidden',
        `The upload URL expired at ${new Date(expires * 1000).toISOString()}. Get a new one from POST /public/v1/portfolios/{portfolioId}/imports/upload-url.`,
        res,
      );
      expect(await storage.stat(key)).toBeNull();
    });

    it('a key reaching outside the directory: 403 unsigned, 404 even when signed', async () => {
      const signingKey = loadConfig('api-core', stack.env).storage.local.signingKey;
      const expires = Math.floor(Date.now() / 1000) + 60;
      for (const key of ['../escaped.csv', 'portfolios/../../escaped.csv', '/tmp/escaped.csv']) {
        const base = `${stack.publicUrl}/public/uploads/${encodeURIComponent(key)}?expires=${expires}`;
        const unsigned = await put(`${base}&signature=${'0'.repeat(64)}`, { 'content-type': 'text/csv' }, Buffer.from(CSV));
        envelope('403', 'forbidden', SIGNATURE_MESSAGE, unsigned);
        const signed = await put(`${base}&signature=${signUpload(key, expires, signingKey)}`, { 'content-type': 'text/csv' }, Buffer.from(CSV));
        envelope('404', 'not_found', 'No file can be stored under this key.', signed);
      }
      for (const escaped of [path.join(path.dirname(stack.storageDir), 'escaped.csv'), '/tmp/escaped.csv']) {
        await expect(readFile(escaped)).rejects.toMatchObject({ code: 'ENOENT' });
      }
      expect((await filesUnder(stack.storageDir)).filter((f) => f.includes('escaped'))).toEqual([]);
    });

    it.each([
      ['another type', { 'content-type': 'application/json' }],
      ['text/plain', { 'content-type': 'text/plain' }],
      ['none', {}],
    ])('Content-Type %s: 400 validation_error', async (_what, headers: Record<string, string>) => {
      const key = newKey();
      const res = await put((await target(key)).url, headers, Buffer.from(CSV));
      envelope('400', 'validation_error', 'Content-Type must be text/csv, the header upload-url returned with the URL.', res);
      expect(await storage.stat(key)).toBeNull();
    });
  });

  describe('size limit (a gateway with IMPORT_MAX_FILE_BYTES=1000)', () => {
    let small: string;
    const tooLarge = 'The file is larger than the limit of 1000 bytes.';
    const onSmall = async (key: string) => {
      const url = new URL((await target(key)).url);
      return `${small}${url.pathname}${url.search}`;
    };

    beforeAll(async () => {
      small = (await stack.startGateway({ IMPORT_MAX_FILE_BYTES: '1000' })).publicUrl;
    });

    it('a file of exactly the limit is stored', async () => {
      const key = newKey();
      expect((await put(await onSmall(key), { 'content-type': 'text/csv' }, Buffer.alloc(1000, 'a'))).status).toBe(200);
      expect(await storage.stat(key)).toEqual({ sizeBytes: 1000, version: expect.any(String) });
    });

    it('a declared Content-Length over the limit: 413, refused before the body is sent with Expect: 100-continue', async () => {
      const key = newKey();
      const res = await put(await onSmall(key), { 'content-type': 'text/csv' }, Buffer.alloc(1001, 'a'), { expectContinue: true });
      envelope('413', 'payload_too_large', tooLarge, res);
      expect(res.bodySent).toBe(false);
      const plain = await put(await onSmall(key), { 'content-type': 'text/csv' }, Buffer.alloc(1001, 'a'));
      envelope('413', 'payload_too_large', tooLarge, plain);
      expect(await storage.stat(key)).toBeNull();
    });

    it('a chunked body that passes the limit while streaming: 413, and no file or temporary file is left', async () => {
      const key = newKey();
      const res = await put(await onSmall(key), { 'content-type': 'text/csv' }, Buffer.alloc(5000, 'a'), { chunked: true });
      envelope('413', 'payload_too_large', tooLarge, res);
      expect(await storage.stat(key)).toBeNull();
      expect((await filesUnder(stack.storageDir)).filter((f) => f.includes(path.basename(key)))).toEqual([]);
    });

    it('a signed URL with a bad Content-Type is still 400 before its size is looked at', async () => {
      const res = await put(await onSmall(newKey()), { 'content-type': 'application/json' }, Buffer.alloc(2000, 'a'));
      expect(res.status).toBe(400);
    });
  });

  it('with Expect: 100-continue a valid upload is asked for, then stored', async () => {
    const key = newKey();
    const res = await put((await target(key)).url, { 'content-type': 'text/csv' }, Buffer.from(CSV), { expectContinue: true });
    expect(res.status).toBe(200);
    expect(res.bodySent).toBe(true);
    expect(await readFile(storage.pathOf(key), 'utf8')).toBe(CSV);
  });

  it('streams a 20 MB body to disk (past the 6 MB API body limit), byte for byte', async () => {
    const key = newKey();
    const line = '12345678901,"Some Name",https://example.com/x,123.45,2024-01-01\n';
    const lines = Math.ceil((20 * 1024 * 1024) / line.length);
    const content = Buffer.from(line.repeat(lines));
    const chunks = Array.from({ length: Math.ceil(content.length / 65_536) }, (_, i) => content.subarray(i * 65_536, (i + 1) * 65_536));
    const res = await put((await target(key)).url, { 'content-type': 'text/csv', 'content-length': String(content.length) }, Readable.from(chunks));
    expect(res.status).toBe(200);
    expect(await storage.stat(key)).toEqual({ sizeBytes: content.length, version: expect.any(String) });
    expect(sha256(await readFile(storage.pathOf(key)))).toBe(sha256(content));
  });

  it('an upload slower than HTTP_REQUEST_TIMEOUT_MS still completes (a gateway with 1 s)', async () => {
    const impatient = (await stack.startGateway({ HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '500' })).publicUrl;
    const key = newKey();
    const url = new URL((await target(key)).url);
    const slow = Readable.from(
      (async function* () {
        for (let i = 0; i < 5; i++) {
          yield Buffer.from(`row ${i}\n`);
          await new Promise((r) => setTimeout(r, 600));
        }
      })(),
    );
    const res = await put(`${impatient}${url.pathname}${url.search}`, { 'content-type': 'text/csv' }, slow);
    expect(res.status).toBe(200);
    expect(await readFile(storage.pathOf(key), 'utf8')).toBe('row 0\nrow 1\nrow 2\nrow 3\nrow 4\n');
  });

  it('a client that goes away mid-upload leaves no file and no temporary file', async () => {
    const key = newKey();
    const req = http.request((await target(key)).url, { method: 'PUT', headers: { 'content-type': 'text/csv', 'content-length': '100000' } });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(30_000, 'a'));
    await eventually(async () => expect((await filesUnder(stack.storageDir)).some((f) => f.includes(`.${path.basename(key)}.`))).toBe(true));
    req.destroy();
    await eventually(async () => expect((await filesUnder(stack.storageDir)).filter((f) => f.includes(path.basename(key)))).toEqual([]));
    expect(await storage.stat(key)).toBeNull();
    await eventually(() => expect(stack.gateways[0].process.logs.some((l) => l.msg === 'upload interrupted by the client' && l.storageKey === key)).toBe(true));
  });

  it('with STORAGE_DRIVER=s3 the route does not exist: 404 not_found', async () => {
    const s3Gateway = (await stack.startGateway({ STORAGE_DRIVER: 's3', S3_BUCKET: 'unused', S3_ENDPOINT: 'http://127.0.0.1:9' })).publicUrl;
    const key = newKey();
    const url = new URL((await target(key)).url);
    const res = await put(`${s3Gateway}${url.pathname}${url.search}`, { 'content-type': 'text/csv' }, Buffer.from(CSV));
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: res.headers['x-request-id'] } });
    expect(await storage.stat(key)).toBeNull();
  });
});
