import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import {
  FileTooLargeError,
  InvalidStorageKeyError,
  LocalDiskStorage,
  StoredFileChangedError,
  StoredFileNotFoundError,
  verifyUpload,
} from '../src';

const KEY = 'portfolios/pf_1/uploads/upl_1.csv';
const SIGNING_KEY = Buffer.alloc(32, 3);

/** Every file below `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

describe('LocalDiskStorage', () => {
  let root: string;
  let storage: LocalDiskStorage;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'dc-storage-'));
    // A directory that does not exist yet: the driver creates it.
    storage = new LocalDiskStorage({ dir: path.join(root, 'uploads'), signingKey: SIGNING_KEY, publicBaseUrl: 'http://127.0.0.1:4000' });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('writes a stream, then stats and streams it back', async () => {
    const content = 'document,name\n123,Ana\n';
    expect(await storage.write(KEY, Readable.from([Buffer.from(content)]), 1_000)).toEqual({ sizeBytes: content.length });
    expect(await storage.stat(KEY)).toEqual({ sizeBytes: content.length, version: expect.any(String) });
    expect(await text(await storage.openRead(KEY))).toBe(content);
    expect(await filesUnder(storage.dir)).toEqual([KEY]);
  });

  it('puts a stream of any size (the rejected-rows files) whole, then stats and streams it back', async () => {
    const key = 'portfolios/pf_1/imports/imp_1-rejected-rows.csv';
    const lines = Array.from({ length: 2_000 }, (_, i) => `row ${i},${'x'.repeat(500)}\r\n`);
    const stored = await storage.put(key, Readable.from(lines));
    expect(stored).toEqual({ sizeBytes: lines.join('').length, version: expect.any(String) });
    expect(await storage.stat(key)).toEqual(stored);
    expect(await text(await storage.openRead(key, stored))).toBe(lines.join(''));
    expect(await filesUnder(storage.dir)).toEqual([key]);
  });

  it('reads the file as it was checked, or refuses it once another upload replaced it, same size included', async () => {
    await storage.write(KEY, Readable.from([Buffer.from('one\n')]), 1_000);
    const checked = await storage.stat(KEY);
    expect(await text(await storage.openRead(KEY, checked ?? undefined))).toBe('one\n');
    await storage.write(KEY, Readable.from([Buffer.from('two\n')]), 1_000);
    await expect(storage.openRead(KEY, checked ?? undefined)).rejects.toThrow(StoredFileChangedError);
    expect(await text(await storage.openRead(KEY))).toBe('two\n');
  });

  it('never shows a partial upload: the old file, or the whole new one', async () => {
    await storage.write(KEY, Readable.from([Buffer.from('old\n')]), 1_000);
    const source = new PassThrough();
    const writing = storage.write(KEY, source, 1_000_000);
    source.write('new,half');
    await new Promise((r) => setTimeout(r, 50));
    expect(await text(await storage.openRead(KEY))).toBe('old\n');
    expect(await storage.stat(KEY)).toEqual({ sizeBytes: 4, version: expect.any(String) });
    // The bytes so far are in a dot file beside the target.
    const during = await filesUnder(storage.dir);
    expect(during).toHaveLength(2);
    expect(during.filter((f) => f !== KEY)[0]).toMatch(/^portfolios\/pf_1\/uploads\/\.upl_1\.csv\.[0-9a-f]{16}\.tmp$/);
    source.end(',done\n');
    await writing;
    expect(await text(await storage.openRead(KEY))).toBe('new,half,done\n');
    expect(await filesUnder(storage.dir)).toEqual([KEY]);
  });

  it('stops past maxBytes with FileTooLargeError, leaves nothing and does not destroy the source', async () => {
    const source = new PassThrough();
    const writing = storage.write(KEY, source, 10);
    source.write('0123456789');
    source.write('x');
    await expect(writing).rejects.toBeInstanceOf(FileTooLargeError);
    await expect(writing).rejects.toMatchObject({ maxBytes: 10 });
    expect(source.destroyed).toBe(false);
    expect(await storage.stat(KEY)).toBeNull();
    expect(await filesUnder(storage.dir)).toEqual([]);
  });

  it('accepts a file of exactly maxBytes', async () => {
    expect(await storage.write(KEY, Readable.from([Buffer.from('0123456789')]), 10)).toEqual({ sizeBytes: 10 });
  });

  it('keeps the previous file when a replacement fails', async () => {
    await storage.write(KEY, Readable.from([Buffer.from('kept\n')]), 1_000);
    await expect(storage.write(KEY, Readable.from([Buffer.from('far too long for the limit')]), 5)).rejects.toBeInstanceOf(FileTooLargeError);
    expect(await text(await storage.openRead(KEY))).toBe('kept\n');
    expect(await filesUnder(storage.dir)).toEqual([KEY]);
  });

  it('removes the temporary file when the source fails (a client that went away)', async () => {
    const source = new PassThrough();
    const writing = storage.write(KEY, source, 1_000);
    source.write('a,b\n');
    await new Promise((r) => setTimeout(r, 20));
    source.destroy(new Error('aborted'));
    await expect(writing).rejects.toThrow('aborted');
    expect(await filesUnder(storage.dir)).toEqual([]);
  });

  it('answers null, not-found and nothing for a key never written', async () => {
    expect(await storage.stat(KEY)).toBeNull();
    await expect(storage.openRead(KEY)).rejects.toBeInstanceOf(StoredFileNotFoundError);
    await expect(storage.delete(KEY)).resolves.toBeUndefined();
  });

  it('deletes', async () => {
    await storage.write(KEY, Readable.from([Buffer.from('a\n')]), 1_000);
    await storage.delete(KEY);
    expect(await storage.stat(KEY)).toBeNull();
  });

  it.each(['../outside.csv', 'portfolios/../../outside.csv', '/etc/passwd', `${'x'}//y.csv`, 'portfolios/.hidden', ''])(
    'refuses the key %j in every method, and writes nothing anywhere',
    async (key) => {
      await writeFile(path.join(root, 'outside.csv'), 'untouched');
      await expect(storage.write(key, Readable.from([Buffer.from('evil')]), 1_000)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.stat(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.openRead(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.uploadTarget(key, { expiresAt: new Date(Date.now() + 60_000), contentType: 'text/csv', maxBytes: 1024 })).rejects.toBeInstanceOf(InvalidStorageKeyError);
      expect(await readFile(path.join(root, 'outside.csv'), 'utf8')).toBe('untouched');
      expect(await filesUnder(root)).toEqual(['outside.csv']);
    },
  );

  it("gives the gateway route's signed URL, its expiry in unix seconds", async () => {
    const expiresAt = new Date('2030-01-02T03:04:05.678Z');
    const target = await storage.uploadTarget(KEY, { expiresAt, contentType: 'text/csv', maxBytes: 1024 });
    expect(target.method).toBe('PUT');
    expect(target.headers).toEqual({ 'Content-Type': 'text/csv' });
    expect(target.fields).toEqual({});
    const url = new URL(target.url);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:4000/public/uploads/portfolios%2Fpf_1%2Fuploads%2Fupl_1.csv');
    const expires = Math.floor(expiresAt.getTime() / 1000);
    expect(url.searchParams.get('expires')).toBe(String(expires));
    expect(verifyUpload(KEY, expires, url.searchParams.get('signature')!, SIGNING_KEY)).toBe(true);
    await expect(storage.uploadTarget(KEY, { expiresAt, contentType: 'application/json', maxBytes: 1024 })).rejects.toThrow('text/csv only');
  });

  it('check creates the directory and proves it writable', async () => {
    await storage.check();
    expect(await filesUnder(storage.dir)).toEqual([]);
  });
});
