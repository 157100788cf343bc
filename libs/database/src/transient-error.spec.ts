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

  it('recognises a lost or refused connection (Postgres stopped or restarting: fault suite)', () => {
    for (const state of ['57P01', '57P02', '57P03', '08006', '08001']) {
      expect(isTransientDatabaseError(prisma(state))).toBe(true);
      expect(isTransientDatabaseError({ code: state })).toBe(true);
    }
    expect(isTransientDatabaseError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientDatabaseError(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientDatabaseError({ code: 'P1001' })).toBe(true);
  });

  it("reads the DriverAdapterError Prisma throws unwrapped from COMMIT: the SQLSTATE under cause, or a socket failure's kind", () => {
    const adapterError = (cause: object) => Object.assign(new Error('adapter'), { name: 'DriverAdapterError', cause });
    expect(isTransientDatabaseError(adapterError({ kind: 'postgres', originalCode: '57P01', originalMessage: 'terminating connection' }))).toBe(true);
    expect(isTransientDatabaseError(adapterError({ kind: 'postgres', originalCode: '40001' }))).toBe(true);
    for (const kind of ['ConnectionClosed', 'DatabaseNotReachable', 'SocketTimeout']) expect(isTransientDatabaseError(adapterError({ kind }))).toBe(true);
    expect(isTransientDatabaseError(adapterError({ kind: 'UniqueConstraintViolation', originalCode: '23505' }))).toBe(false);
    // An ordinary Error's cause is not read as a database payload.
    expect(isTransientDatabaseError(new Error('boom', { cause: { originalCode: '57P01' } }))).toBe(false);
  });

  it('leaves other errors alone', () => {
    expect(isTransientDatabaseError(prisma('23505'))).toBe(false);
    expect(isTransientDatabaseError({ code: '22P02' })).toBe(false);
    expect(isTransientDatabaseError(new Error('boom'))).toBe(false);
    expect(isTransientDatabaseError(undefined)).toBe(false);
  });
});
