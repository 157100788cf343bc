import { databaseErrorFields } from './transient-error';

/**
 * SQLSTATEs of a transaction that lost to another one: rolled back, nothing written, and a retry of
 * the whole transaction runs after the other one and sees its rows.
 */
const LOST_TO_ANOTHER = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);
const UNIQUE_VIOLATION = '23505';

/**
 * Whether `err` (from `pg` or Prisma) is a write conflict with a concurrent transaction: a deadlock,
 * a serialization failure, or a unique violation on one of `naturalKeys` — indexes over values two
 * writers can both claim, named by the constraint the error carries. A unique violation on any other
 * constraint (a primary key over ids this code generated, say) is a defect, not a race: not a conflict.
 * Classified by SQLSTATE and constraint name only, never by the message's words.
 */
export function isWriteConflict(err: unknown, naturalKeys: ReadonlySet<string>): boolean {
  const fields = databaseErrorFields(err);
  if (!fields?.code) return false;
  if (LOST_TO_ANOTHER.has(fields.code)) return true;
  return fields.code === UNIQUE_VIOLATION && fields.constraint !== undefined && naturalKeys.has(fields.constraint);
}

/** Whether `err` (from `pg` or Prisma) is a lock not taken within `lock_timeout` (55P03): nothing was done. */
export function isLockNotAvailable(err: unknown): boolean {
  return databaseErrorFields(err)?.code === '55P03';
}
