import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { InvalidStorageKeyError, StoredFileChangedError, StoredFileNotFoundError, UploadTarget } from '../src';
import { S3Storage, S3StorageOptions } from '../src/s3-storage';
import { S3RVER_CREDENTIALS, S3TestServer } from './s3-test-server';

const BUCKET = 'dc-uploads';

/** The client's upload, exactly as upload-url describes it: the form's fields in order, then the file. */
function post(target: UploadTarget, body: string | Uint8Array, fields: Record<string, string> = target.fields, url = target.url) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([body]), 'upload.csv');
  return fetch(url, { method: target.method, headers: target.headers, body: form });
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3Storage against an S3-compatible server (s3rver)', () => {
  let server: S3TestServer;
  let options: S3StorageOptions;
  let storage: S3Storage;
  let n = 0;
  const newKey = () => `portfolios/pf_s3/uploads/upl_${++n}.csv`;
  const MAX_BYTES = 64 * 1024;
  const inAMinute = () => ({ expiresAt: new Date(Date.now() + 60_000), contentType: 'text/csv', maxBytes: MAX_BYTES });

  beforeAll(async () => {
    server = await S3TestServer.start([BUCKET]);
    options = { endpoint: server.endpoint, region: 'us-east-1', bucket: BUCKET, forcePathStyle: true, ...S3RVER_CREDENTIALS };
    storage = new S3Storage(options);
  });
  afterAll(async () => {
    storage.close();
    await server.stop();
  });

  it('check reaches the bucket, and fails for a bucket that does not exist', async () => {
    await expect(storage.check()).resolves.toBeUndefined();
    const missing = new S3Storage({ ...options, bucket: 'no-such-bucket' });
    await expect(missing.check()).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    missing.close();
  });

  it("gives a presigned POST to the bucket whose policy names the key, the Content-Type, the size range and the expiry", async () => {
    const key = newKey();
    const expiresAt = new Date(Date.now() + 3_600_000);
    const target = await storage.uploadTarget(key, { expiresAt, contentType: 'text/csv', maxBytes: MAX_BYTES });
    expect(target.method).toBe('POST');
    expect(target.url).toBe(`${server.endpoint}/${BUCKET}`);
    expect(target.headers).toEqual({});
    expect(Object.keys(target.fields).sort()).toEqual(['Content-Type', 'Policy', 'X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Signature', 'bucket', 'key']);
    expect(target.fields).toMatchObject({ 'Content-Type': 'text/csv', bucket: BUCKET, key });
    const policy = JSON.parse(Buffer.from(target.fields.Policy, 'base64').toString('utf8'));
    expect(policy.conditions).toEqual(expect.arrayContaining([['content-length-range', 0, MAX_BYTES], { key }, { 'Content-Type': 'text/csv' }, { bucket: BUCKET }]));
    expect(Math.abs(Date.parse(policy.expiration) - expiresAt.getTime())).toBeLessThanOrEqual(2_000);
  });

  it('takes the upload with exactly the returned method, URL and fields (204), then stats and streams it', async () => {
    const key = newKey();
    const content = Buffer.from('document,name,amount\n' + Array.from({ length: 2_000 }, (_, i) => `${i},"Name ${i}",${i}.50\n`).join(''));
    expect(content.length).toBeLessThan(MAX_BYTES);
    const response = await post(await storage.uploadTarget(key, inAMinute()), content);
    expect(response.status).toBe(204);
    expect(await storage.stat(key)).toEqual({ sizeBytes: content.length, version: expect.any(String) });
    const stream = await storage.openRead(key);
    expect(stream).toBeInstanceOf(Readable);
    expect(sha256(await readAll(stream))).toBe(sha256(content));
  });

  it('takes a file of exactly the limit and refuses one byte more (400 EntityTooLarge), storing nothing', async () => {
    const atLimit = newKey();
    expect((await post(await storage.uploadTarget(atLimit, inAMinute()), new Uint8Array(MAX_BYTES).fill(0x61))).status).toBe(204);
    expect(await storage.stat(atLimit)).toEqual({ sizeBytes: MAX_BYTES, version: expect.any(String) });
    const past = newKey();
    const response = await post(await storage.uploadTarget(past, inAMinute()), new Uint8Array(MAX_BYTES + 1).fill(0x61));
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('<Code>EntityTooLarge</Code>');
    expect(await storage.stat(past)).toBeNull();
  });

  it('lets the same policy overwrite the file while it is valid', async () => {
    const key = newKey();
    const target = await storage.uploadTarget(key, inAMinute());
    expect((await post(target, 'a\n1\n')).status).toBe(204);
    expect((await post(target, 'a\n1\n2\n')).status).toBe(204);
    expect(await storage.stat(key)).toEqual({ sizeBytes: 6, version: expect.any(String) });
  });

  it('reads the object as it was checked, or refuses it once replaced (If-Match, the length)', async () => {
    const key = newKey();
    const target = await storage.uploadTarget(key, inAMinute());
    expect((await post(target, 'a\n1\n')).status).toBe(204);
    const checked = await storage.stat(key);
    expect(await readAll(await storage.openRead(key, checked ?? undefined))).toEqual(Buffer.from('a\n1\n'));
    for (const replacement of ['a\n2\n', 'a\n1\n2\n']) {
      expect((await post(target, replacement)).status).toBe(204);
      await expect(storage.openRead(key, checked ?? undefined)).rejects.toThrow(StoredFileChangedError);
    }
  });

  it.each([
    ['another Content-Type', { 'Content-Type': 'application/octet-stream' }, 'AccessDenied'],
    ['text/csv with a charset', { 'Content-Type': 'text/csv; charset=utf-8' }, 'AccessDenied'],
    ['no Content-Type', { 'Content-Type': undefined }, 'AccessDenied'],
    ['another key', { key: 'portfolios/pf_s3/uploads/upl_other.csv' }, 'AccessDenied'],
    ['a field the policy does not name', { acl: 'public-read' }, 'AccessDenied'],
    ['a changed policy', { Policy: 'e30=' }, 'SignatureDoesNotMatch'],
  ])('refuses a POST with %s (403), storing nothing', async (_what, change: Record<string, string | undefined>, code) => {
    const key = newKey();
    const target = await storage.uploadTarget(key, inAMinute());
    const fields = Object.fromEntries(Object.entries({ ...target.fields, ...change }).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const response = await post(target, 'a,b\n', fields);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(`<Code>${code}</Code>`);
    expect(await storage.stat(key)).toBeNull();
    expect(await storage.stat('portfolios/pf_s3/uploads/upl_other.csv')).toBeNull();
  });

  it('refuses an expired policy', async () => {
    const key = newKey();
    const target = await storage.uploadTarget(key, { ...inAMinute(), expiresAt: new Date(Date.now() + 1_000) });
    await new Promise((r) => setTimeout(r, 2_100));
    const response = await post(target, 'a,b\n');
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Policy expired');
    expect(await storage.stat(key)).toBeNull();
  });

  it('puts a stream (the rejected-rows files) as one object, leaving no spool file behind', async () => {
    const key = 'portfolios/pf_s3/imports/imp_1-rejected-rows.csv';
    const lines = Array.from({ length: 2_000 }, (_, i) => `row ${i},${'x'.repeat(500)}\r\n`);
    const spools = async () => (await readdir(tmpdir())).filter((f) => f.startsWith('dc-put-'));
    const before = await spools();
    const stored = await storage.put(key, Readable.from(lines));
    expect(stored).toEqual({ sizeBytes: Buffer.byteLength(lines.join('')), version: expect.any(String) });
    expect(await storage.stat(key)).toEqual(stored);
    expect((await readAll(await storage.openRead(key, stored))).toString()).toBe(lines.join(''));
    expect(await spools()).toEqual(before);
  });

  it('deletes; a missing key stats null, opens as not found and deletes quietly', async () => {
    const key = newKey();
    expect((await post(await storage.uploadTarget(key, inAMinute()), 'a\n')).status).toBe(204);
    await storage.delete(key);
    expect(await storage.stat(key)).toBeNull();
    await expect(storage.openRead(key)).rejects.toBeInstanceOf(StoredFileNotFoundError);
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it('refuses keys that are not relative paths of plain segments', async () => {
    await expect(storage.uploadTarget('../x.csv', inAMinute())).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(storage.stat('/abs.csv')).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(storage.openRead('a//b.csv')).rejects.toBeInstanceOf(InvalidStorageKeyError);
  });

  it('gives upload URLs of S3_PUBLIC_ENDPOINT when the services reach the server elsewhere', async () => {
    // The services' endpoint is unreachable here: only the URL's (public) endpoint can take the POST.
    const publicSide = new S3Storage({ ...options, endpoint: 'http://127.0.0.1:9', publicEndpoint: server.endpoint.replace('127.0.0.1', 'localhost') });
    const key = newKey();
    const target = await publicSide.uploadTarget(key, inAMinute());
    expect(target.url).toBe(`${server.endpoint.replace('127.0.0.1', 'localhost')}/${BUCKET}`);
    expect((await post(target, 'a,b\n1,2\n')).status).toBe(204);
    expect(await storage.stat(key)).toEqual({ sizeBytes: 8, version: expect.any(String) });
    publicSide.close();
  });
});
