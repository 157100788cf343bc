/**
 * What the bench (bench/read-baseline.bench.ts) and its bare baseline processes share: the
 * environment they are configured by, the NATS subjects, and the statements file. No imports, so
 * the baseline processes load nothing of the project but the dependency-free pagination helpers.
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
} as const;

export const QUEUE_GROUP = 'bare-pg-service';

export const subjects = (prefix: string) => ({
  list: `${prefix}.debtors.list`,
  get: `${prefix}.debtors.get`,
  me: `${prefix}.me`,
});

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
  /** The fixed bytes of the `/me` answer ("Fastify → NATS → static reply"). */
  meBody: string;
}

/** A reply with no bytes: nothing found (by id) or the request failed (lists). */
export const EMPTY_REPLY = new Uint8Array(0);
