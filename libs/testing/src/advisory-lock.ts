import { Client } from 'pg';

export interface HeldLock {
  /** Sessions currently waiting for this lock (this key, in this database). */
  waiters(): Promise<number>;
  release(): Promise<void>;
}

/**
 * Holds the advisory lock `pg_advisory_lock(hashtextextended(key, 0))` in a session of its own —
 * the lock the debtor batch takes per debtor (`debtor:<portfolioId>:<externalId>`) — so a test can
 * keep a request in flight for as long as it needs, then let it finish.
 */
export async function holdAdvisoryLock(databaseUrl: string, key: string): Promise<HeldLock> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
  // pg_locks spans the whole cluster, where parallel test files wait on locks of their own: match
  // this database and this key (a bigint key shows as classid = high 32 bits, objid = low 32 bits).
  const waitersSql = `
    WITH held AS (SELECT hashtextextended($1, 0) AS k)
    SELECT count(*)::int AS n FROM pg_locks, held
    WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND classid::bigint = (held.k >> 32) & 4294967295 AND objid::bigint = held.k & 4294967295`;
  return {
    waiters: async () => (await client.query(waitersSql, [key])).rows[0].n as number,
    release: async () => {
      await client.query('SELECT pg_advisory_unlock_all()');
      await client.end();
    },
  };
}

/** Resolves once another session waits for the held lock (the request has reached it). */
export async function untilWaiting(lock: HeldLock): Promise<void> {
  while ((await lock.waiters()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
}
