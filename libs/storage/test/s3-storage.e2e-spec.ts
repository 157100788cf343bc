import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { InvalidStorageKeyError, StoredFileChangedError, StoredFileNotFoundError, UploadTarget } from '../src';
import { S3Storage, S3StorageOptions } from '../src/s3-storage';
import { S3RVER_CREDENTIALS, S3TestServer } from './s3-test-server';

const BUCKET = 'dc-uploads';

/** The client's upload, exactly as upload-url describes it. */
function put(target: UploadTarget, body: string | Uint8Array, headers: Record<string, string> = target.headers, url = target.url) {
  return fetch(url, { method: target.method, headers, body });
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
  const inAMinute = () => ({ expiresAt: new Date(Date.now() + 60_000), contentType: 'text/csv' });

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

  it('gives a presigned path-style PUT with the Content-Type signed and no checksum of an empty body', async () => {
    const key = newKey();
    const target = await storage.uploadTarget(key, { expiresAt: new Date(Date.now() + 3_600_000), contentType: 'text/csv' });
    expect(target.method).toBe('PUT');
    expect(target.headers).toEqual({ 'Content-Type': 'text/csv' });
    const url = new URL(target.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${server.endpoint}/${BUCKET}/${key}`);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeGreaterThanOrEqual(3_598);
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(3_600);
    // The SDK's default adds x-amz-checksum-crc32 of the empty body; S3 then refuses every real upload.
    expect([...url.searchParams.keys()].filter((k) => k.toLowerCase().includes('checksum'))).toEqual([]);
  });

  it('takes the upload with exactly the returned method, URL and headers, then stats and streams it', async () => {
    const key = newKey();
    const content = Buffer.from('document,name,amount\n' + Array.from({ length: 50_000 }, (_, i) => `${i},"Name ${i}",${i}.50\n`).join(''));
    const response = await put(await storage.uploadTarget(key, inAMinute()), content);
    expect(response.status).toBe(200);
    expect(await storage.stat(key)).toEqual({ sizeBytes: content.length, version: expect.any(String) });
    const stream = await storage.openRead(key);
    expect(stream).toBeInstanceOf(Readable);
    expect(sha256(await readAll(stream))).toBe(sha256(content));
  });

  it('lets the same URL overwrite the file while it is valid', async () => {
    const key = newKey();
    const target = await storage.uploadTarget(key, inAMinute());
    expect((await put(target, 'a\n1\n')).status).toBe(200);
    expect((await put(target, 'a\n1\n2\n')).status).toBe(200);
    expect(await storage.stat(key)).toEqual({ sizeBytes: 6, version: expect.any(String) });
  });

  it('reads the object as it was checked, or refuses it once replaced (If-Match, the length)', async () => {
    const key = newKey();
    const target = await storage.uploadTarget(key, inAMinute());
    expect((await put(target, 'a\n1\n')).status).toBe(200);
    const checked = await storage.stat(key);
    expect(await readAll(await storage.openRead(key, checked ?? undefined))).toEqual(Buffer.from('a\n1\n'));
    for (const replacement of ['a\n2\n', 'a\n1\n2\n']) {
      expect((await put(target, replacement)).status).toBe(200);
      await expect(storage.openRead(key, checked ?? undefined)).rejects.toThrow(StoredFileChangedError);
    }
  });

  it.each([
    ['another Content-Type', { 'Content-Type': 'application/octet-stream' }],
    ['text/csv with a charset', { 'Content-Type': 'text/csv; charset=utf-8' }],
    ['no Content-Type', {}],
  ])('refuses a PUT with %s, storing nothing', async (_what, headers: Record<string, string>) => {
    const key = newKey();
    const response = await put(await storage.uploadTarget(key, inAMinute()), new TextEncoder().encode('a,b\n'), headers);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('SignatureDoesNotMatch');
    expect(await storage.stat(key)).toBeNull();
  });

  it('refuses a URL whose key was changed', async () => {
    const key = newKey();
    const target = await storage.uploadTarget(key, inAMinute());
    const other = newKey();
    const response = await put(target, 'a,b\n', target.headers, target.url.replace(key, other));
    expect(response.status).toBe(403);
    expect(await storage.stat(other)).toBeNull();
  });

  it('refuses an expired URL', async () => {
    const key = newKey();
    const target = await storage.uploadTarget(key, { expiresAt: new Date(Date.now() + 1_000), contentType: 'text/csv' });
    await new Promise((r) => setTimeout(r, 2_100));
    const response = await put(target, 'a,b\n');
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Request has expired');
    expect(await storage.stat(key)).toBeNull();
  });

  it('deletes; a missing key stats null, opens as not found and deletes quietly', async () => {
    const key = newKey();
    expect((await put(await storage.uploadTarget(key, inAMinute()), 'a\n')).status).toBe(200);
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

  it('signs upload URLs for S3_PUBLIC_ENDPOINT when the services reach the server elsewhere', async () => {
    // The services' endpoint is unreachable here: only the URL's (public) endpoint can take the PUT.
    const publicSide = new S3Storage({ ...options, endpoint: 'http://127.0.0.1:9', publicEndpoint: server.endpoint.replace('127.0.0.1', 'localhost') });
    const key = newKey();
    const target = await publicSide.uploadTarget(key, inAMinute());
    expect(target.url.startsWith(`${server.endpoint.replace('127.0.0.1', 'localhost')}/${BUCKET}/${key}?`)).toBe(true);
    expect((await put(target, 'a,b\n1,2\n')).status).toBe(200);
    expect(await storage.stat(key)).toEqual({ sizeBytes: 8, version: expect.any(String) });
    publicSide.close();
  });
});
