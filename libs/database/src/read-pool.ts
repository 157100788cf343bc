import { Pool, QueryResultRow } from 'pg';
import type { DatabaseOptions } from './database.service';
import { connectionSettings } from './connection-settings';
import { DeadlinePool } from './deadline-pool';
import { PreparedStatements, SqlStatement } from './prepared-statements';

/**
 * The `pg` pool of one server, primary or replica: `max` connections with the apps' session
 * settings, no connection handed out after the request's deadline (DeadlinePool).
 */
export function openPool(url: string, poolSize: number, options: DatabaseOptions, applicationName = 'debt-collection'): Pool {
  const pool = new DeadlinePool(
    {
      ...connectionSettings(url, options.ssl),
      max: poolSize,
      application_name: applicationName,
      // Sent as start-up parameters: every session of the pool has them (docs/adr/0014).
      statement_timeout: options.statementTimeoutMs,
      lock_timeout: options.lockTimeoutMs,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
      connectionTimeoutMillis: options.connectTimeoutMs,
      // Queries issued together are written together, each with its own Sync: a write and the read
      // of its commit's WAL position share one round trip (queryThenLsn, docs/adr/0050). A caller
      // that awaits each query, as every other one does, sees no difference.
      pipeline: true,
    },
    options.deadline,
  );
  // An idle connection lost (the server restarted or unreachable) is dropped by the pool; without a
  // listener that 'error' event would end the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Hand-written reads on one pool as named prepared statements: the primary's, or a replica's (docs/adr/0050). */
export class ReadPool {
  readonly statements: PreparedStatements;

  constructor(readonly pool: Pool, options: Pick<DatabaseOptions, 'preparedStatements'>) {
    this.statements = new PreparedStatements(options.preparedStatements !== false);
  }

  /** A query's rows, run as a named prepared statement (PreparedStatements). */
  async prepared<T extends QueryResultRow>(query: SqlStatement): Promise<T[]> {
    return (await this.pool.query<T>(this.statements.config(query, false))).rows;
  }

  /**
   * `prepared`, with every column read as the bytes Postgres sent: a `text` column's value is its
   * UTF-8 bytes (binary-columns.ts), never decoded into a string. For JSON Postgres serialised that
   * goes into a reply as it is (docs/adr/0038). Without the runtime patch `pg-binary-columns` the
   * same bytes come from text columns, decoded and encoded again; read only text and JSON columns
   * here (another type's text differs from its binary format).
   */
  async preparedBytes<T extends { [column in keyof T]: Buffer | null }>(query: SqlStatement): Promise<T[]> {
    return (await this.pool.query<QueryResultRow>(this.statements.config(query, true))).rows as T[];
  }
}
