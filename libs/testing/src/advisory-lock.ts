import { Client } from 'pg';

export interface HeldLock {
  /** Sessions currently waiting for an advisory lock (any key) in this database. */
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
  return {
    waiters: async () => Number((await client.query(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rows[0].count),
    release: async () => {
      await client.query('SELECT pg_advisory_unlock_all()');
      await client.end();
    },
  };
}

/** Resolves once some session waits for an advisory lock (the request has reached its lock). */
export async function untilWaiting(lock: HeldLock): Promise<void> {
  while ((await lock.waiters()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
}
