import { isLockNotAvailable, isWriteConflict } from './write-conflict';

describe('isWriteConflict', () => {
  const keys = new Set(['debtor_phones_debtor_id_phone_e164_key']);
  /** pg's DatabaseError carries the SQLSTATE as `code` and the violated constraint as `constraint`. */
  const pg = (code: string, constraint?: string) => Object.assign(new Error('pg'), { code, constraint });
  /** Prisma wraps @prisma/adapter-pg's payload, which names a unique violation's index as `constraint.index`. */
  const prisma = (originalCode: string, index?: string) => ({
    code: originalCode === '23505' ? 'P2002' : 'P2034',
    meta: { driverAdapterError: { cause: { originalCode, ...(index ? { constraint: { index } } : {}) } } },
  });

  it('a deadlock or a serialization failure lost to another transaction', () => {
    for (const state of ['40P01', '40001']) {
      expect(isWriteConflict(pg(state), keys)).toBe(true);
      expect(isWriteConflict(prisma(state), keys)).toBe(true);
    }
  });

  it('a unique violation on a natural key another writer claimed first', () => {
    expect(isWriteConflict(pg('23505', 'debtor_phones_debtor_id_phone_e164_key'), keys)).toBe(true);
    expect(isWriteConflict(prisma('23505', 'debtor_phones_debtor_id_phone_e164_key'), keys)).toBe(true);
  });

  it('not a unique violation on another constraint (a generated id), nor one that names none', () => {
    expect(isWriteConflict(pg('23505', 'debts_pkey'), keys)).toBe(false);
    expect(isWriteConflict(pg('23505'), keys)).toBe(false);
    expect(isWriteConflict(prisma('23505', 'debtors_pkey'), keys)).toBe(false);
    expect(isWriteConflict(pg('23505', 'debtor_phones_debtor_id_phone_e164_key'), new Set())).toBe(false);
  });

  it('never by the words of a message: other SQLSTATEs, no SQLSTATE, not an error', () => {
    expect(isWriteConflict(pg('23503', 'debts_debtor_portfolio_fkey'), keys)).toBe(false);
    expect(isWriteConflict(pg('57014'), keys)).toBe(false);
    expect(isWriteConflict(new Error('deadlock detected'), keys)).toBe(false);
    expect(isWriteConflict(new Error('duplicate key value violates unique constraint "debtor_phones_debtor_id_phone_e164_key"'), keys)).toBe(false);
    expect(isWriteConflict({ message: '23505 40P01' }, keys)).toBe(false);
    expect(isWriteConflict(undefined, keys)).toBe(false);
    expect(isWriteConflict('40P01', keys)).toBe(false);
  });
});

describe('isLockNotAvailable', () => {
  it('a lock not taken within lock_timeout, from pg or through Prisma; nothing else', () => {
    expect(isLockNotAvailable(Object.assign(new Error('pg'), { code: '55P03' }))).toBe(true);
    expect(isLockNotAvailable({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '55P03' } } } })).toBe(true);
    expect(isLockNotAvailable(Object.assign(new Error('pg'), { code: '57014' }))).toBe(false);
    expect(isLockNotAvailable(new Error('canceling statement due to lock timeout'))).toBe(false);
    expect(isLockNotAvailable(undefined)).toBe(false);
  });
});
