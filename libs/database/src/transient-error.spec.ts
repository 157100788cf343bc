import { isTransientDatabaseError } from './transient-error';

describe('isTransientDatabaseError', () => {
  const prisma = (sqlState: string) => ({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: sqlState } } } });

  it('recognises timeouts, serialization failures and deadlocks, from Prisma or pg', () => {
    for (const state of ['55P03', '57014', '40001', '40P01']) {
      expect(isTransientDatabaseError(prisma(state))).toBe(true);
      expect(isTransientDatabaseError({ code: state })).toBe(true);
    }
    expect(isTransientDatabaseError({ code: 'P2028' })).toBe(true);
    expect(isTransientDatabaseError({ code: 'P2024' })).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isTransientDatabaseError(prisma('23505'))).toBe(false);
    expect(isTransientDatabaseError({ code: '22P02' })).toBe(false);
    expect(isTransientDatabaseError(new Error('boom'))).toBe(false);
    expect(isTransientDatabaseError(undefined)).toBe(false);
  });
});
