import type { Readable } from 'node:stream';

/**
 * Where and how a client uploads one file, in one request, with no API key: a PUT of the whole file
 * with `headers` (the local driver's upload route), or a multipart/form-data POST of `fields` and
 * then the file (S3's browser-based upload, whose signed policy bounds the size).
 */
export interface UploadTarget {
  url: string;
  method: 'PUT' | 'POST';
  /** Headers the client must send (the PUT's Content-Type, checked by the gateway's upload route). */
  headers: Record<string, string>;
  /** Form fields the POST must carry, in this order, before the file's field `file`; empty for a PUT. */
  fields: Record<string, string>;
}

export interface UploadTargetOptions {
  /** After this instant the URL refuses the upload. */
  expiresAt: Date;
  /** The content type the client must declare. */
  contentType: string;
  /** The largest file the target takes, in bytes (S3 refuses a larger upload; the local route too). */
  maxBytes: number;
}

export interface StoredFile {
  sizeBytes: number;
  /**
   * Which bytes are stored: S3's ETag, or the local file's inode, modification time and size. Any
   * upload under the key changes it, so a reader can insist on the bytes it checked earlier.
   */
  version: string;
}

/**
 * Storage of uploaded CSV files behind one interface (docs/adr/0021). api-core asks for upload
 * targets and checks that a file exists; the importer streams it; two drivers, chosen by
 * STORAGE_DRIVER: `local` (a directory; uploads go through the gateway's signed upload route) and
 * `s3` (an S3-compatible bucket; uploads go straight to it with a presigned POST).
 */
export interface ObjectStorage {
  readonly driver: 'local' | 's3';
  /** Where and how the client uploads the file, valid until `expiresAt`. */
  uploadTarget(key: string, options: UploadTargetOptions): Promise<UploadTarget>;
  /** The stored file's size, or null when nothing was uploaded under `key`. */
  stat(key: string): Promise<StoredFile | null>;
  /**
   * Streams the file (never read whole into memory); rejects when it does not exist, and with
   * StoredFileChangedError when `expected` is given and the stored bytes are no longer those.
   */
  openRead(key: string, expected?: StoredFile): Promise<Readable>;
  /**
   * Stores `body` under `key` as `text/csv`, whole or not at all: a reader sees the previous file or
   * the new one (the importer's rejected-rows files; clients' uploads use `uploadTarget`). Never held in memory.
   */
  put(key: string, body: Readable): Promise<StoredFile>;
  /** Removes the file; no error when it does not exist. */
  delete(key: string): Promise<void>;
  /** Readiness: the directory is writable / the bucket is reachable. */
  check(): Promise<void>;
}
