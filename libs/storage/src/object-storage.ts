import type { Readable } from 'node:stream';

/** Where and how a client uploads one file: a single PUT of the whole file, no API key. */
export interface UploadTarget {
  url: string;
  method: 'PUT';
  /** Headers the client must send with the PUT (signed into S3's URL; checked by the gateway's upload route). */
  headers: Record<string, string>;
}

export interface UploadTargetOptions {
  /** After this instant the URL refuses the upload. */
  expiresAt: Date;
  /** The content type the client must declare. */
  contentType: string;
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
 * `s3` (an S3-compatible bucket; uploads go straight to it with a presigned PUT).
 */
export interface ObjectStorage {
  readonly driver: 'local' | 's3';
  /** A URL the client PUTs the file to, valid until `expiresAt`. */
  uploadTarget(key: string, options: UploadTargetOptions): Promise<UploadTarget>;
  /** The stored file's size, or null when nothing was uploaded under `key`. */
  stat(key: string): Promise<StoredFile | null>;
  /**
   * Streams the file (never read whole into memory); rejects when it does not exist, and with
   * StoredFileChangedError when `expected` is given and the stored bytes are no longer those.
   */
  openRead(key: string, expected?: StoredFile): Promise<Readable>;
  /** Removes the file; no error when it does not exist. */
  delete(key: string): Promise<void>;
  /** Readiness: the directory is writable / the bucket is reachable. */
  check(): Promise<void>;
}
