export * from './profile';
export * from './tenant-api';
export * from './quiet-tenant';
export * from './noisy-tenant';
export * from './figures';
export * from './suite';
