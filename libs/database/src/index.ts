export type { SqlTransactionOptions } from './begin-statement';
export * from './database.service';
export { readBinaryColumnsAsBytes } from './binary-columns';
export * from './new-id';
export * from './rows';
export { DeadlinePassedError } from './deadline-pool';
export { isTransientDatabaseError, TransactionTimeoutError } from './transient-error';
export { isWriteConflict } from './write-conflict';
// Type-only import of the runtime keeps @prisma/client visible to Nx's project graph (TOOLCHAIN.md 7).
export type { Decimal } from '@prisma/client/runtime/client';
