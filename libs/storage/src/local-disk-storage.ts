import type { AppConfig } from '@dc/config';
import { randomBytes } from 'node:crypto';
import { createWriteStream, type BigIntStats } from 'node:fs';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStorage, StoredFile, UploadTarget, UploadTargetOptions } from './object-storage';
import { FileTooLargeError, InvalidStorageKeyError, StoredFileChangedError, StoredFileNotFoundError } from './storage-errors';
import { assertStorageKey } from './storage-key';
import { localUploadUrl } from './upload-signature';

/** The only content type the gateway's upload route accepts. */
export const LOCAL_UPLOAD_CONTENT_TYPE = 'text/csv';

export interface LocalDiskStorageOptions {
  /** Root directory (STORAGE_LOCAL_DIR), created if missing; relative paths resolve against the working directory. */
  dir: string;
  /** STORAGE_SIGNING_KEY: signs the upload URLs. */
  signingKey: Buffer;
  /** PUBLIC_BASE_URL: the gateway's address as clients reach it. */
  publicBaseUrl: string;
}

/**
 * Files in one directory of one machine (or a volume every service mounts). Uploads go through
 * the gateway's signed route (apps/gateway/src/uploads), which calls `write`. A key is a relative
 * path whose segments are checked (storage-key.ts), so no key reaches outside the directory.
 */
export class LocalDiskStorage implements ObjectStorage {
  readonly driver = 'local' as const;
  readonly dir: string;

  constructor(private readonly options: LocalDiskStorageOptions) {
    this.dir = path.resolve(options.dir);
  }

  static fromConfig(config: Pick<AppConfig, 'storage' | 'gateway'>): LocalDiskStorage {
    return new LocalDiskStorage({
      dir: config.storage.local.dir,
      signingKey: config.storage.local.signingKey,
      publicBaseUrl: config.gateway.publicBaseUrl,
    });
  }

  async uploadTarget(key: string, { expiresAt, contentType }: UploadTargetOptions): Promise<UploadTarget> {
    assertStorageKey(key);
    if (contentType !== LOCAL_UPLOAD_CONTENT_TYPE) {
      throw new Error(`The local storage driver's upload route accepts ${LOCAL_UPLOAD_CONTENT_TYPE} only (asked for ${contentType})`);
    }
    const expires = Math.floor(expiresAt.getTime() / 1000);
    return {
      url: localUploadUrl(this.options.publicBaseUrl, key, expires, this.options.signingKey),
      method: 'PUT',
      headers: { 'Content-Type': contentType },
      fields: {},
    };
  }

  /** The file's absolute path; throws InvalidStorageKeyError for a key that cannot be stored. */
  pathOf(key: string): string {
    assertStorageKey(key);
    const file = path.join(this.dir, ...key.split('/'));
    // Belt and braces: the segment rule already keeps every key inside the directory.
    if (!file.startsWith(this.dir + path.sep)) throw new InvalidStorageKeyError(key);
    return file;
  }

  async stat(key: string): Promise<StoredFile | null> {
    try {
      const info = await stat(this.pathOf(key), { bigint: true });
      return info.isFile() ? storedFile(info) : null;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async openRead(key: string, expected?: StoredFile): Promise<Readable> {
    // Opened before the stream exists, so a missing file rejects here rather than as a stream error.
    const handle = await open(this.pathOf(key), 'r').catch((err: unknown) => {
      throw isNotFound(err) ? new StoredFileNotFoundError(key) : err;
    });
    if (expected) {
      // The open handle keeps reading this inode even if an upload renames a new file over it.
      const found = storedFile(await handle.stat({ bigint: true }));
      if (found.version !== expected.version || found.sizeBytes !== expected.sizeBytes) {
        await handle.close();
        throw new StoredFileChangedError(key);
      }
    }
    return handle.createReadStream();
  }

  async put(key: string, body: Readable): Promise<StoredFile> {
    await this.write(key, body, Number.MAX_SAFE_INTEGER);
    const stored = await this.stat(key);
    if (!stored) throw new StoredFileNotFoundError(key);
    return stored;
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async check(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const probe = path.join(this.dir, `.check-${randomBytes(6).toString('hex')}`);
    await writeFile(probe, '');
    await rm(probe, { force: true });
  }

  /**
   * Stores `source` under `key`, atomically: the bytes go to a temporary file beside the target
   * (a dot file, which no key can name), flushed to disk, then renamed over it. A reader sees the
   * previous file or the whole new one, never a partial upload. Past `maxBytes` it stops reading
   * and rejects with FileTooLargeError; on any failure the temporary file is removed.
   *
   * `source` is not destroyed when this fails for its own reasons (too large, disk error), so an
   * HTTP request can still be answered; a failing source (a client that went away) rejects.
   */
  async write(key: string, source: Readable, maxBytes: number): Promise<Pick<StoredFile, 'sizeBytes'>> {
    const file = this.pathOf(key);
    await mkdir(path.dirname(file), { recursive: true });
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
    let bytes = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) done(new FileTooLargeError(maxBytes));
        else done(null, chunk);
      },
    });
    // `source` is piped, not consumed through an async iterator: on Node 22, ending the iteration
    // early (the limit passed) waits for the source's next chunk, so a client that stalls after the
    // limit would hold the write for ever. Piping stops at once and never destroys the source.
    const sourceFailed = (err: Error) => limit.destroy(err);
    const sourceClosed = () => {
      if (!source.readableEnded) limit.destroy(new Error('the upload ended before its last byte'));
    };
    source.on('error', sourceFailed);
    source.on('close', sourceClosed);
    source.pipe(limit);
    try {
      await pipeline(limit, createWriteStream(temp, { flags: 'wx', flush: true }));
      await rename(temp, file);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    } finally {
      source.unpipe(limit);
      source.off('error', sourceFailed);
      source.off('close', sourceClosed);
    }
    return { sizeBytes: bytes };
  }
}

/** A write renames a new file over the key: a new inode and modification time, whatever its size. */
function storedFile(info: BigIntStats): StoredFile {
  return { sizeBytes: Number(info.size), version: `${info.ino}:${info.mtimeNs}:${info.size}` };
}

function isNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
