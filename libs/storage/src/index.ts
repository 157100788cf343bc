export * from './object-storage';
export * from './storage-errors';
export * from './storage-key';
export * from './upload-signature';
export * from './local-disk-storage';
export * from './s3-storage';
export * from './create-storage';
