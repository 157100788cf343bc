/**
 * What the benches (bench/read-baseline.bench.ts, bench/writes.bench.ts) and their bare baseline
 * processes share: the environment they are configured by, the NATS subjects, the statements file
 * and the payment reply. No imports, so bare-gateway and bare-pg-service load nothing of the project
 * but the dependency-free pagination helpers.
 */

/** Environment of the baseline processes. */
export const BaselineEnv = {
  natsUrl: 'NATS_URL',
  /** Subject prefix of the baseline's own request/reply (never the project's). */
  subjectPrefix: 'BARE_SUBJECT_PREFIX',
  /** bare-gateway's port (0: any; the port is in its `bare-gateway listening` log line). */
  port: 'BARE_PORT',
  databaseUrl: 'DATABASE_URL',
  /** Size of bare-pg-service's pool: api-core's default (libs/config, DATABASE_POOL_SIZE). */
  poolSize: 'BARE_POOL_SIZE',
  /** Path of the StatementsFile bare-pg-service serves. */
  statements: 'BARE_STATEMENTS',
  /** bare-gateway's NATS request timeout (ms). */
  requestTimeoutMs: 'BARE_REQUEST_TIMEOUT_MS',
  /** bare-write-service: the AuthContext (JSON) whose reach its payment statements check. */
  auth: 'BARE_AUTH',
} as const;

export const QUEUE_GROUP = 'bare-pg-service';
export const WRITE_QUEUE_GROUP = 'bare-write-service';

export const subjects = (prefix: string) => ({
  list: `${prefix}.debtors.list`,
  get: `${prefix}.debtors.get`,
  me: `${prefix}.me`,
  /** GET /public/v1/events (first pages): a ListRequest. */
  events: `${prefix}.events.list`,
  /** POST /public/v1/payments: the raw JSON body; answered with a StatusReply. */
  registerPayment: `${prefix}.payments.register`,
  /** POST /operator/v1/portfolios/{id}/promises and /calls: an IntakeRequest; answered with a StatusReply. */
  createPromise: `${prefix}.promises.create`,
  createCall: `${prefix}.calls.create`,
});

/** bare-gateway → bare-write-service for an operator intake: the path's portfolio and the raw JSON body. */
export interface IntakeRequest {
  portfolioId: string;
  body: unknown;
}

/** bare-gateway → bare-pg-service for a list page: the query string's values, unvalidated. */
export interface ListRequest {
  limit?: string;
  cursor?: string;
  portfolioId?: string;
}

/**
 * One statement as api-core's builder wrote it (Prisma.Sql `.text` / `.values`), with the positions
 * in `values` (0-based) of what varies per request: the service copies `values` and writes the
 * request's cursor id, portfolio id, debtor id and `limit + 1` at those positions.
 */
export interface StatementTemplate {
  name: string;
  text: string;
  values: unknown[];
  afterIdAt: number[];
  portfolioIdAt: number[];
  idAt: number[];
  takeAt: number[];
}

/** The file named by BARE_STATEMENTS. */
export interface StatementsFile {
  /** First page / page after a cursor, across every portfolio the key reaches. */
  list: StatementTemplate;
  listAfter: StatementTemplate;
  /** The same with `?portfolioId=`. */
  listInPortfolio: StatementTemplate;
  listInPortfolioAfter: StatementTemplate;
  /** One debtor by id (filter `{id}`, take 1). */
  byId: StatementTemplate;
  /** The first page of GET /v1/events, every portfolio the key reaches (api-core's eventsPageSql). */
  events: StatementTemplate;
  /** The fixed bytes of the `/me` answer ("Fastify → NATS → static reply"). */
  meBody: string;
}

/** A reply with no bytes: nothing found (by id) or the request failed (lists). */
export const EMPTY_REPLY = new Uint8Array(0);

/** bare-write-service → bare-gateway: the HTTP status as three ASCII digits, then the body. */
export const statusReply = (status: number, body: string): Buffer => Buffer.from(`${status}${body}`, 'utf8');

/** The status and body of a statusReply; null for a reply too short to be one (a failure). */
export function readStatusReply(data: Uint8Array): { status: number; body: Buffer } | null {
  if (data.byteLength < 3) return null;
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return { status: Number(bytes.toString('latin1', 0, 3)), body: bytes.subarray(3) };
}

/** A baseline process's setting from its environment; a missing one stops it, naming it. */
export function env(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

/**
 * Runs a baseline process: `start` returns how to stop it, which SIGTERM or SIGINT calls before the
 * process exits 0; a failure to start exits 1 with its stack.
 */
export function runBaselineProcess(start: () => Promise<() => Promise<unknown>>): void {
  start().then(
    (close) => {
      const stop = () => void close().finally(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
