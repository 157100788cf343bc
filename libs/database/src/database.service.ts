import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Pool, QueryConfig, QueryResultRow } from 'pg';
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import type { ConnectionOptions } from 'node:tls';
import { Prisma, PrismaClient } from './generated/prisma/client';
import { beginStatement, SqlTransactionOptions } from './begin-statement';
import { binaryColumnsReadAsBytes, BYTES_FOR_BINARY_COLUMNS, BYTES_FROM_TEXT_COLUMNS } from './binary-columns';
import { DeadlinePool } from './deadline-pool';
import { TransactionTimeoutError } from './transient-error';

export { Prisma } from './generated/prisma/client';
export type { PrismaClient } from './generated/prisma/client';

/** A transaction in progress: repositories run their statements on it when a change spans several. */
export type Tx = Prisma.TransactionClient;

/** What a service needs to group repository calls into one transaction (and nothing else of the database). */
export interface Transactions {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

/** A statement of `sqlTransaction`: its text with `$n` placeholders and their values (a `Prisma.Sql` is one). */
export interface SqlStatement {
  readonly text: string;
  readonly values: unknown[];
}

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

/** URL parameters that would override an explicit `ssl` option in `pg` (the connection string wins there). */
const URL_SSL_PARAMETERS = ['sslmode', 'ssl', 'sslrootcert', 'sslcert', 'sslkey', 'uselibpqcompat'];

/**
 * The `pg` connection settings of the pool and of sessions (docs/adr/0027): with a CA, TLS that
 * verifies the server's certificate against it (and its host name, unless sslmode=verify-ca);
 * `sslmode=disable` turns TLS off. Without a CA the URL is used as it is: `pg` reads `sslmode`
 * (require, verify-ca and verify-full all verify against the system's CAs).
 */
export function connectionSettings(url: string, ssl?: DatabaseOptions['ssl']): { connectionString: string; ssl?: ConnectionOptions } {
  if (!ssl) return { connectionString: url };
  const parsed = new URL(url);
  const mode = parsed.searchParams.get('sslmode');
  for (const name of URL_SSL_PARAMETERS) parsed.searchParams.delete(name);
  if (mode === 'disable') return { connectionString: parsed.toString() };
  return {
    connectionString: parsed.toString(),
    ssl: { ca: ssl.ca, rejectUnauthorized: true, ...(ssl.verifyHostname ? {} : { checkServerIdentity: () => undefined }) },
  };
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
  /** SQL text → statement name; bounded by the finite set of query shapes in the code. */
  private readonly statementNames = new Map<string, string>();

  constructor(
    private readonly url: string,
    poolSize: number,
    private readonly options: DatabaseOptions = {},
  ) {
    this.pool = new DeadlinePool(
      {
        ...connectionSettings(url, options.ssl),
        max: poolSize,
        application_name: 'debt-collection',
        // Sent as start-up parameters: every session of the pool has them (docs/adr/0014).
        statement_timeout: options.statementTimeoutMs,
        lock_timeout: options.lockTimeoutMs,
        idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
        connectionTimeoutMillis: options.connectTimeoutMs,
      },
      options.deadline,
    );
    // An idle connection lost (Postgres restarted or unreachable) is dropped by the pool; without a
    // listener that 'error' event would end the process.
    this.pool.on('error', () => undefined);
    const transactionOptions = options.statementTimeoutMs ? { timeout: options.statementTimeoutMs, maxWait: options.connectTimeoutMs } : undefined;
    this.client = new PrismaClient({ adapter: new PrismaPg(this.pool), transactionOptions });
  }

  /**
   * Runs a query as a named prepared statement, planned once per connection and reused
   * (measured: +27 % throughput on keyset pages). The name is derived from the SQL text, so every distinct text (each
   * combination of optional filters) is its own statement with its own cached plan.
   */
  async prepared<T extends QueryResultRow>(query: SqlStatement): Promise<T[]> {
    return (await this.pool.query<T>(this.preparedConfig(query, false))).rows;
  }

  /**
   * `prepared`, with every column read as the bytes Postgres sent: a `text` column's value is its
   * UTF-8 bytes (binary-columns.ts), never decoded into a string. For JSON Postgres serialised that
   * goes into a reply as it is (docs/adr/0038). Without the runtime patch `pg-binary-columns` the
   * same bytes come from text columns, decoded and encoded again; read only text and JSON columns
   * here (another type's text differs from its binary format).
   */
  async preparedBytes<T extends { [column in keyof T]: Buffer | null }>(query: Prisma.Sql): Promise<T[]> {
    return (await this.pool.query<QueryResultRow>(this.preparedConfig(query, true))).rows as T[];
  }

  /**
   * The query's config, one object literal with all its fields: pg read a config built as
   * `{ ...config, binary, types }` 9 µs slower per query (a micro-benchmark of one-row reads).
   * `binary` (every result column in binary format) is missing from @types/pg's QueryConfig.
   */
  private preparedConfig(query: SqlStatement, bytes: boolean): QueryConfig & { binary: boolean } {
    const text = query.text;
    const binary = bytes && binaryColumnsReadAsBytes();
    const types = binary ? BYTES_FOR_BINARY_COLUMNS : bytes ? BYTES_FROM_TEXT_COLUMNS : undefined;
    // Behind a transaction-pooling PgBouncer each query may land on another server connection.
    if (this.options.preparedStatements === false) return { text, values: query.values, binary, types };
    let name = this.statementNames.get(text);
    if (!name) {
      name = `q_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      this.statementNames.set(text, name);
    }
    return { name, text, values: query.values, binary, types };
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
      await client.query('COMMIT');
      return result;
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
