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

/** `openRead` with an expected version, of a key whose file was replaced since: nothing is read. */
export class StoredFileChangedError extends Error {
  constructor(readonly key: string) {
    super(`The file stored under ${key} was replaced since it was checked`);
    this.name = 'StoredFileChangedError';
  }
}

/** `LocalDiskStorage.write` stopped reading past `maxBytes`: nothing was stored. */
export class FileTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes`);
    this.name = 'FileTooLargeError';
  }
}
