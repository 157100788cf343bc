import type { AppConfig } from '@dc/config';
import { LocalDiskStorage } from './local-disk-storage';
import type { ObjectStorage } from './object-storage';
import { S3Storage } from './s3-storage';

/** The driver STORAGE_DRIVER names, configured from AppConfig (docs/adr/0021). */
export function createStorage(config: Pick<AppConfig, 'storage' | 'gateway'>): ObjectStorage {
  return config.storage.driver === 's3' ? new S3Storage(config.storage.s3) : LocalDiskStorage.fromConfig(config);
}
