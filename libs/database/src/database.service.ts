import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Pool, QueryResultRow } from 'pg';
import { setFlagsFromString } from 'node:v8';
import { Prisma, PrismaClient } from './generated/prisma/client';
import { beginStatement, SqlTransactionOptions } from './begin-statement';
import { Committed, CURRENT_LSN_SQL, queryThenLsn } from './commit-lsn';
import { SqlStatement } from './prepared-statements';
import { openPool, ReadPool } from './read-pool';
import { connectionSettings } from './connection-settings';
import { TransactionTimeoutError } from './transient-error';

export { connectionSettings } from './connection-settings';

export { Prisma } from './generated/prisma/client';
export type { PrismaClient } from './generated/prisma/client';

/** A transaction in progress: repositories run their statements on it when a change spans several. */
export type Tx = Prisma.TransactionClient;

/** What a service needs to group repository calls into one transaction (and nothing else of the database). */
export interface Transactions {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

export type { SqlStatement } from './prepared-statements';

/** A transaction run by `Database.sqlTransaction`: statements through `pg` on one pool connection. */
export interface SqlTransaction {
  /** The rows of a statement. */
  query<T extends QueryResultRow>(query: SqlStatement): Promise<T[]>;
  /** The number of rows a statement wrote. */
  execute(query: SqlStatement): Promise<number>;
}

/** Settings of a session opened with `Database.openSession`. */
export interface SessionOptions {
  /** `statement_timeout` of the session (the pool's by default). */
  statementTimeoutMs?: number;
  /** `lock_timeout` of the session (the pool's by default). */
  lockTimeoutMs?: number;
  /** `application_name`, to tell the session apart in pg_stat_activity. */
  applicationName?: string;
}

export interface DatabaseOptions {
  /** Postgres `statement_timeout`, and the timeout of a whole interactive transaction (rolled back). */
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
  /** Waiting for a pool connection: a free slot or a new connection. */
  connectTimeoutMs?: number;
  /** The current request's deadline (epoch ms): no connection is handed out after it. */
  deadline?: () => number | undefined;
  /** TLS with a CA of its own (DATABASE_SSL_CA_FILE); without it `sslmode` in the URL decides. */
  ssl?: { ca: string; verifyHostname: boolean };
  /** false: `prepared()` sends unnamed statements (PgBouncer transaction pooling before 1.21, docs/adr/0033). */
  preparedStatements?: boolean;
}

/**
 * The runtime patch `wasm-liftoff-only`. Prisma 7 runs its query compiler as WebAssembly. V8 compiles it with Liftoff, then recompiles it
 * with TurboFan in the background, and that second tier held 40–60 MiB of resident memory per
 * process for no measured gain: Prisma caches each query shape's plan, so the module's code is not
 * hot (1,000 × two ORM queries: 319–336 ms of CPU on Liftoff alone against 373–384 ms with tier-up,
 * and 200 ms less start-up work). The flag must be set before the module is first compiled (at the
 * first query) and holds for every WebAssembly module of the process (docs/adr/0035).
 */
export function compileWasmWithLiftoffOnly(): void {
  setFlagsFromString('--liftoff-only');
}

/**
 * One connection pool per process, shared by the Prisma client (through the `pg` driver adapter)
 * and by `prepared()`, which runs hand-written SQL as named prepared statements for hot read paths
 * (one statement per debtor page instead of four). Repositories are the only code that uses either.
 */
export class Database implements Transactions {
  readonly client: PrismaClient;
  private readonly pool: Pool;
  /** `prepared` and `preparedBytes` on this pool; the primary's side of read routing (ReadRouter). */
  readonly reads: ReadPool;

  constructor(
    private readonly url: string,
    poolSize: number,
    private readonly options: DatabaseOptions = {},
  ) {
    this.pool = openPool(url, poolSize, options);
    this.reads = new ReadPool(this.pool, options);
    const transactionOptions = options.statementTimeoutMs ? { timeout: options.statementTimeoutMs, maxWait: options.connectTimeoutMs } : undefined;
    this.client = new PrismaClient({ adapter: new PrismaPg(this.pool), transactionOptions });
  }

  /** A query's rows, as a named prepared statement on the primary (ReadPool.prepared). */
  prepared<T extends QueryResultRow>(query: SqlStatement): Promise<T[]> {
    return this.reads.prepared<T>(query);
  }

  /** `prepared` with every column read as bytes, on the primary (ReadPool.preparedBytes, docs/adr/0038). */
  preparedBytes<T extends { [column in keyof T]: Buffer | null }>(query: SqlStatement): Promise<T[]> {
    return this.reads.preparedBytes<T>(query);
  }

  /**
   * `prepared` for a write that commits on its own (one statement, autocommit), with the WAL position
   * after its commit read in the same round trip (queryThenLsn): what read-your-writes waits for.
   */
  async preparedCommitted<T extends QueryResultRow>(query: SqlStatement): Promise<Committed<T[]>> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      return await queryThenLsn<T>(client, this.reads.statements.config(query, false));
    } catch (err) {
      broken = connectionLost(err);
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /** The primary's current WAL position (the replicas' lag is measured against it). */
  async currentLsn(): Promise<string> {
    return (await this.pool.query<{ lsn: string }>(CURRENT_LSN_SQL)).rows[0].lsn;
  }

  /**
   * Runs `fn` in one interactive transaction: committed when it resolves, rolled back when it
   * throws. Bounded like every transaction by the statement timeout (docs/adr/0014).
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.client.$transaction(fn);
  }

  /**
   * Runs `fn` in one transaction on a pool connection through `pg` directly: committed when it
   * resolves, rolled back when it throws. For hot bulk paths whose statements carry large array
   * parameters (the debtor batch): Prisma passes every parameter through its query engine, which
   * cost the same statements 25–40 ms more per 500-debtor batch (docs/adr/0034). Each statement is
   * bounded by the session's statement_timeout and the whole by statementTimeoutMs, as with
   * `transaction()`; the pool's deadline check applies to taking the connection. Statements are
   * unnamed (planned each time, as Prisma's are), so transaction pooling behind PgBouncer works.
   */
  async sqlTransaction<T>(fn: (tx: SqlTransaction) => Promise<T>, options: SqlTransactionOptions = {}): Promise<T> {
    return (await this.runSqlTransaction(fn, options, false)).result;
  }

  /** `sqlTransaction`, with the WAL position after its commit read in the COMMIT's round trip (queryThenLsn). */
  sqlTransactionCommitted<T>(fn: (tx: SqlTransaction) => Promise<T>, options: SqlTransactionOptions = {}): Promise<Committed<T>> {
    return this.runSqlTransaction(fn, options, true) as Promise<Committed<T>>;
  }

  private async runSqlTransaction<T>(fn: (tx: SqlTransaction) => Promise<T>, options: SqlTransactionOptions, readLsn: boolean): Promise<{ result: T; lsn?: string }> {
    const timeoutMs = this.options.statementTimeoutMs;
    const client = await this.pool.connect();
    const expiresAt = timeoutMs ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY;
    const run = (query: SqlStatement) => {
      if (Date.now() >= expiresAt) throw new TransactionTimeoutError(timeoutMs ?? 0);
      return client.query({ text: query.text, values: query.values });
    };
    /** A connection that failed to roll back is discarded, not returned to the pool. */
    let broken: Error | undefined;
    try {
      await client.query(beginStatement(options.settings));
      const result = await fn({
        query: async <R extends QueryResultRow>(query: SqlStatement) => (await run(query)).rows as R[],
        execute: async (query: SqlStatement) => (await run(query)).rowCount ?? 0,
      });
      if (!readLsn) {
        await client.query('COMMIT');
        return { result };
      }
      return { result, lsn: (await queryThenLsn(client, { text: 'COMMIT' })).lsn };
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackFailed: Error) => {
        broken = rollbackFailed;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /**
   * A connection of its own, outside the pool, for work that holds a session: COPY streams,
   * explicit transactions spanning JS work, session-level advisory locks (the importer, docs/adr/0022).
   * Same server settings as the pool unless overridden; the caller ends it (`end()`), and an
   * error event on it (the server went away) is swallowed: the next query on it fails instead.
   */
  async openSession(options: SessionOptions = {}): Promise<Client> {
    const client = new Client({
      ...connectionSettings(this.url, this.options.ssl),
      application_name: options.applicationName ?? 'debt-collection',
      statement_timeout: options.statementTimeoutMs ?? this.options.statementTimeoutMs,
      lock_timeout: options.lockTimeoutMs ?? this.options.lockTimeoutMs,
      idle_in_transaction_session_timeout: this.options.idleInTransactionTimeoutMs,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
    });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }

  async ping(): Promise<void> {
    await this.client.$queryRaw`SELECT 1`;
  }

  async close(): Promise<void> {
    await this.client.$disconnect();
    if (!this.pool.ended) await this.pool.end();
  }
}

/** An error after which the connection may be mid-message: discarded rather than handed back to the pool. */
function connectionLost(err: unknown): Error | undefined {
  return err instanceof Error && !('severity' in err) ? err : undefined;
}
