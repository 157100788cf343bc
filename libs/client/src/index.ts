// The typed client of the public API (README.md in this folder; docs/adr/0029).
export * from './client';
export * from './api-error';
export * from './imports';
export * from './paginate';
export * from './retry';
export * from './webhooks';
export type * from './types';
