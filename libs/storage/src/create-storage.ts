import type { AppConfig } from '@dc/config';
import { LocalDiskStorage } from './local-disk-storage';
import type { ObjectStorage } from './object-storage';

/**
 * The driver STORAGE_DRIVER names, configured from AppConfig (docs/adr/0021). The S3 driver, and
 * the AWS SDK with it (~4 MiB of heap), is loaded only when it is the one configured: every module
 * a service loads stays in its old generation, which each full collection marks again (ADR 0035).
 */
export function createStorage(config: Pick<AppConfig, 'storage' | 'gateway'>): ObjectStorage {
  if (config.storage.driver !== 's3') return LocalDiskStorage.fromConfig(config);
  const { S3Storage } = require('./s3-storage') as typeof import('./s3-storage.js');
  return new S3Storage(config.storage.s3);
}
