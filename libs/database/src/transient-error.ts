/**
 * Postgres SQLSTATEs of a statement the database itself cut off or refused for the moment; the
 * transaction was rolled back, so the request did nothing and may be retried (docs/adr/0014).
 */
const TRANSIENT_SQLSTATES = new Set([
  '55P03', // lock_not_available: waited past lock_timeout
  '57014', // query_canceled: ran past statement_timeout
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);
/** Prisma's: P2024 no pool connection within the wait; P2028 interactive transaction past its timeout (rolled back). */
const TRANSIENT_PRISMA_CODES = new Set(['P2024', 'P2028']);

interface MaybeDatabaseError {
  code?: unknown;
  meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } };
}

/** Whether `err` (from Prisma or from `pg` directly) is one of those transient refusals. */
export function isTransientDatabaseError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, meta } = err as MaybeDatabaseError;
  const sqlState = meta?.driverAdapterError?.cause?.originalCode ?? code;
  return (typeof sqlState === 'string' && TRANSIENT_SQLSTATES.has(sqlState)) || (typeof code === 'string' && TRANSIENT_PRISMA_CODES.has(code));
}
