export * from './object-storage';
export * from './storage-errors';
export * from './storage-key';
export * from './upload-signature';
export * from './local-disk-storage';
// The S3 driver is not re-exported here, so that importing the library does not load the AWS SDK:
// createStorage loads it when STORAGE_DRIVER=s3; its tests import './s3-storage' directly.
export type { S3StorageOptions } from './s3-storage';
export * from './create-storage';
