/** A key that cannot name a stored file: absolute, with `.`/`..` or empty segments, or odd characters. */
export class InvalidStorageKeyError extends Error {
  constructor(readonly key: string) {
    super(`Invalid storage key: ${JSON.stringify(key.slice(0, 200))}`);
    this.name = 'InvalidStorageKeyError';
  }
}

/** `openRead` of a key under which nothing was stored. */
export class StoredFileNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No file is stored under ${key}`);
    this.name = 'StoredFileNotFoundError';
  }
}

/** `LocalDiskStorage.write` stopped reading past `maxBytes`: nothing was stored. */
export class FileTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes`);
    this.name = 'FileTooLargeError';
  }
}
