import type { ClientBase, QueryConfig, QueryResultRow } from 'pg';

/** The WAL position the server has written up to: after a commit returned, at or past that commit's record. */
export const CURRENT_LSN_SQL = 'SELECT pg_current_wal_lsn()::text AS lsn';

/** What a write returns beside its rows for read-your-writes (docs/adr/0050): where its commit is in the WAL. */
export interface Committed<T> {
  result: T;
  /** `pg_current_wal_lsn()` read after the commit: a replica that has replayed it shows the write. */
  lsn: string;
}

/**
 * Runs `query` on `client` outside any transaction block (so it commits on its own, or is a
 * `COMMIT`), then reads the WAL position: both are written at once on a client in pipeline mode
 * (`pg`'s `pipeline: true`, which every pool and the importer's control session use), each with its
 * own Sync, so the position is read after the commit, in the write's own round trip. Both are waited
 * for before the client is handed back; a failed write fails the call.
 */
export async function queryThenLsn<T extends QueryResultRow>(client: ClientBase, query: QueryConfig): Promise<Committed<T[]>> {
  const [written, position] = await Promise.allSettled([client.query<T>(query), client.query<{ lsn: string }>(CURRENT_LSN_SQL)]);
  if (written.status === 'rejected') throw written.reason;
  if (position.status === 'rejected') throw position.reason;
  return { result: written.value.rows, lsn: position.value.rows[0].lsn };
}
