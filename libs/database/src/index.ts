export type { SqlTransactionOptions } from './begin-statement';
export * from './database.service';
export { readBinaryColumnsAsBytes } from './binary-columns';
export * from './new-id';
export * from './rows';
export { DeadlinePassedError } from './deadline-pool';
export { isTransientDatabaseError, TransactionTimeoutError } from './transient-error';
export { isLockNotAvailable, isWriteConflict } from './write-conflict';
// The generated Prisma client is gitignored, so Nx's project graph cannot see that this lib needs
// @prisma/client, and an app's pruned package.json would lack it: this tracked type-only import shows it.
export type { Decimal } from '@prisma/client/runtime/client';
export * from './lsn';
export type { Committed } from './commit-lsn';
export * from './read-routing';
export { RedisWritePositions } from './write-positions';
