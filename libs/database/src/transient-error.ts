/**
 * Postgres SQLSTATEs of a statement the database itself cut off or refused for the moment; the
 * transaction was rolled back, so the request did nothing and may be retried (docs/adr/0014).
 */
const TRANSIENT_SQLSTATES = new Set([
  '55P03', // lock_not_available: waited past lock_timeout
  '57014', // query_canceled: ran past statement_timeout
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);
/** Prisma's: P2024 no pool connection within the wait; P2028 interactive transaction past its timeout (rolled back). */
const TRANSIENT_PRISMA_CODES = new Set(['P2024', 'P2028', 'P1001', 'P1017']);
/**
 * The connection was lost or refused (Postgres stopping, restarting or unreachable): SQLSTATE class 08,
 * 57P01–57P03 (shut down by the administrator, crash, cannot connect now), and the errors `pg` and Node
 * raise for a connection that is gone. A transaction whose connection dies is rolled back by Postgres;
 * only a loss during COMMIT leaves the outcome unknown, which every write guards with its idempotency
 * key (Idempotency-Key, payment externalId): the retry replays or finds the row (docs/adr/0028).
 */
const CONNECTION_SQLSTATES = /^(08...|57P0[123])$/;
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const CONNECTION_MESSAGES = /Connection terminated|not queryable|connection error|ECONNREFUSED|ECONNRESET/;

/** What `@prisma/adapter-pg` reports for a socket that failed (no SQLSTATE). */
const CONNECTION_ADAPTER_KINDS = new Set(['ConnectionClosed', 'DatabaseNotReachable', 'SocketTimeout']);

/** The payload of Prisma's DriverAdapterError: the driver's SQLSTATE and message, or a socket failure's kind. */
interface AdapterErrorPayload {
  kind?: unknown;
  originalCode?: unknown;
  originalMessage?: unknown;
  /** A unique violation's index (`{ index }`) when the driver named it. */
  constraint?: { index?: unknown };
}

interface MaybeDatabaseError {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  /** `pg`'s DatabaseError: the constraint a violation names. */
  constraint?: unknown;
  cause?: AdapterErrorPayload;
  meta?: { driverAdapterError?: { cause?: AdapterErrorPayload } };
}

/**
 * What the database said, read the same way from `pg` (its DatabaseError carries `code` and
 * `constraint`) and from Prisma, which wraps the adapter's payload under `meta` — except where its
 * transaction manager runs COMMIT or ROLLBACK: there the DriverAdapterError itself is thrown, its
 * payload under `cause`.
 */
export interface DatabaseErrorFields {
  /** The SQLSTATE (from the adapter's payload, or pg's own), else the error's code: an errno such as ECONNREFUSED, Prisma's P…. */
  code?: string;
  /** The constraint a violation names. */
  constraint?: string;
  message?: string;
  /** The adapter's kind of a failure without a SQLSTATE (a socket). */
  kind?: string;
  /** The error's own code: Prisma's (P…) when it wraps the adapter's payload, else the same as `code`. */
  ownCode?: string;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function databaseErrorFields(err: unknown): DatabaseErrorFields | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { name, code, meta, cause, message, constraint } = err as MaybeDatabaseError;
  const adapter = meta?.driverAdapterError?.cause ?? (name === 'DriverAdapterError' ? cause : undefined);
  return {
    code: text(adapter?.originalCode) ?? text(code),
    constraint: text(adapter?.constraint?.index) ?? text(constraint),
    message: text(adapter?.originalMessage) ?? text(message),
    kind: text(adapter?.kind),
    ownCode: text(code),
  };
}

/**
 * A statement of `sqlTransaction` that would have started after the transaction's time was up
 * (statementTimeoutMs, the bound of Prisma's interactive transactions too): rolled back, nothing
 * written, transient (503 with Retry-After).
 */
export class TransactionTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the transaction ran past its ${timeoutMs} ms and was rolled back`);
    this.name = 'TransactionTimeoutError';
  }
}

/** Whether `err` (from Prisma or from `pg` directly) is one of those transient refusals. */
export function isTransientDatabaseError(err: unknown): boolean {
  if (err instanceof TransactionTimeoutError) return true;
  const fields = databaseErrorFields(err);
  if (!fields) return false;
  if (fields.kind !== undefined && CONNECTION_ADAPTER_KINDS.has(fields.kind)) return true;
  const sqlState = fields.code;
  if (sqlState !== undefined && (TRANSIENT_SQLSTATES.has(sqlState) || CONNECTION_SQLSTATES.test(sqlState) || CONNECTION_ERRNOS.has(sqlState))) return true;
  if (fields.ownCode !== undefined && TRANSIENT_PRISMA_CODES.has(fields.ownCode)) return true;
  return fields.message !== undefined && CONNECTION_MESSAGES.test(fields.message);
}
