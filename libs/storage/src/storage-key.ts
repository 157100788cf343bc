import { InvalidStorageKeyError } from './storage-errors';

/**
 * One segment of a storage key. Letters, digits, `.`, `_`, `-`, not starting with a dot: never
 * `.` or `..`, never a hidden file (the local driver's temporary files start with a dot, so no key
 * can name one), and the same name on every filesystem and in every S3-compatible server.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;
const MAX_KEY_LENGTH = 1024;

/** Whether `key` is a relative path such as `portfolios/pf_x/uploads/upl_y.csv` that can be stored. */
export function isStorageKey(key: string): boolean {
  return typeof key === 'string' && key.length > 0 && key.length <= MAX_KEY_LENGTH && key.split('/').every((s) => SEGMENT.test(s));
}

export function assertStorageKey(key: string): void {
  if (!isStorageKey(key)) throw new InvalidStorageKeyError(key);
}
