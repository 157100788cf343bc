import type { Client, QueryResultRow } from 'pg';

/**
 * A connection of its own (Database.openSession) held by one running import: COPY streams,
 * transactions around JS work, the import's session-level advisory lock. Not from the pool, so
 * a long import never starves the pool's other users.
 */
export type Session = Client;

export async function rows<T extends QueryResultRow>(session: Session, text: string, values: unknown[] = []): Promise<T[]> {
  return (await session.query<T>(text, values)).rows;
}

/** Runs `fn` in one transaction on `session`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(session: Session, fn: () => Promise<T>): Promise<T> {
  await session.query('BEGIN');
  try {
    const result = await fn();
    await session.query('COMMIT');
    return result;
  } catch (err) {
    await session.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
