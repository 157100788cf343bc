import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { StorageConfig } from '@dc/config';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStorage, StoredFile, UploadTarget, UploadTargetOptions } from './object-storage';
import { StoredFileChangedError, StoredFileNotFoundError } from './storage-errors';
import { assertStorageKey } from './storage-key';

/**
 * StorageConfig's s3 section. `publicEndpoint` (S3_PUBLIC_ENDPOINT) is the endpoint as clients reach
 * it, when it differs from the one the services use (compose: the services reach
 * `http://minio:9000`, a client on the host `http://localhost:9000`); upload URLs are signed for it.
 * Empty: the same as `endpoint`.
 */
export type S3StorageOptions = Omit<StorageConfig['s3'], 'publicEndpoint'> & { publicEndpoint?: string };

/** Upload policies are kept to SigV4's longest validity, 7 days. */
const MAX_PRESIGN_SECONDS = 604_800;
/** Bound on metadata calls (stat, delete, check); reading a body has no overall bound. */
const CALL_TIMEOUT_MS = 10_000;

/**
 * An S3-compatible bucket (AWS S3, MinIO). Clients upload with one presigned POST (S3's
 * browser-based upload): its signed policy names the key, the Content-Type and the largest size, so
 * the server itself refuses another key, another type or a file past the limit — a presigned PUT
 * cannot bound the size it stores. Several importer replicas on several hosts read the same objects.
 */
export class S3Storage implements ObjectStorage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;
  /** Signs upload URLs for the public endpoint; no request is sent with it. */
  private readonly presignClient: S3Client;
  private readonly bucket: string;

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
    this.client = new S3Client(clientConfig(options, options.endpoint));
    this.presignClient = options.publicEndpoint ? new S3Client(clientConfig(options, options.publicEndpoint)) : this.client;
  }

  async uploadTarget(key: string, { expiresAt, contentType, maxBytes }: UploadTargetOptions): Promise<UploadTarget> {
    assertStorageKey(key);
    const expires = Math.min(MAX_PRESIGN_SECONDS, Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000)));
    // The policy holds `key`, `bucket` and every given field as exact conditions, and the size range.
    const { url, fields } = await createPresignedPost(this.presignClient, {
      Bucket: this.bucket,
      Key: key,
      Fields: { 'Content-Type': contentType },
      Conditions: [['content-length-range', 0, maxBytes]],
      Expires: expires,
    });
    return { url, method: 'POST', headers: {}, fields };
  }

  async stat(key: string): Promise<StoredFile | null> {
    assertStorageKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
      return { sizeBytes: head.ContentLength ?? 0, version: head.ETag ?? '' };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async openRead(key: string, expected?: StoredFile): Promise<Readable> {
    assertStorageKey(key);
    try {
      // If-Match: the server answers 412 rather than another object's bytes (an upload again while the policy is valid).
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, IfMatch: expected?.version || undefined }));
      const body = object.Body as Readable;
      // The ETag and length too: a server that ignores If-Match still tells which object it sent.
      if (expected && (object.ContentLength !== expected.sizeBytes || (expected.version && object.ETag !== expected.version))) {
        body.destroy();
        throw new StoredFileChangedError(key);
      }
      // In Node the body is the HTTP response stream (an IncomingMessage), read as it arrives.
      return body;
    } catch (err) {
      if (isNotFound(err)) throw new StoredFileNotFoundError(key);
      if (isPreconditionFailed(err)) throw new StoredFileChangedError(key);
      throw err;
    }
  }

  /**
   * One PUT, whose length S3 needs first: the body is spooled to a temporary file (os.tmpdir(), an
   * emptyDir in Kubernetes), then sent from it. S3 stores an object whole or not at all.
   */
  async put(key: string, body: Readable): Promise<StoredFile> {
    assertStorageKey(key);
    const spool = path.join(tmpdir(), `dc-put-${randomBytes(8).toString('hex')}`);
    try {
      await pipeline(body, createWriteStream(spool, { flags: 'wx' }));
      const { size } = await stat(spool);
      const put = await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(spool), ContentLength: size, ContentType: 'text/csv' }),
      );
      return { sizeBytes: size, version: put.ETag ?? '' };
    } finally {
      await rm(spool, { force: true });
    }
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  }

  /** Closes the client's sockets (tests, shutdown). */
  close(): void {
    this.client.destroy();
    if (this.presignClient !== this.client) this.presignClient.destroy();
  }
}

function clientConfig(options: S3StorageOptions, endpoint: string): S3ClientConfig {
  return {
    region: options.region,
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: options.forcePathStyle,
    // Without keys, the SDK's default chain (environment, web identity / IRSA, instance role).
    ...(options.accessKeyId ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } } : {}),
    // Checksums only where an operation requires them (the SDK's default would add some to every call).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 5_000 },
  };
}

function isPreconditionFailed(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'PreconditionFailed' || e?.$metadata?.httpStatusCode === 412;
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
