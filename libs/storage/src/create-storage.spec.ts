import { loadConfig } from '@dc/config';
import { createStorage } from './create-storage';
import { LocalDiskStorage } from './local-disk-storage';
import { S3Storage } from './s3-storage';

describe('createStorage', () => {
  it('is the local disk by default', () => {
    expect(createStorage(loadConfig('api-core', {}))).toBeInstanceOf(LocalDiskStorage);
  });

  it('loads the S3 driver when STORAGE_DRIVER=s3', () => {
    const storage = createStorage(loadConfig('api-core', { STORAGE_DRIVER: 's3', S3_BUCKET: 'portfolios', S3_REGION: 'eu-west-1' }));
    expect(storage).toBeInstanceOf(S3Storage);
  });
});
