/**
 * What one run of the noisy-neighbour suite does (bench/README.md, "noisy-neighbour"). Tenant B's
 * mix is the same in both of its runs (A idle, then beside A); A's load is at the documented limits:
 * 300 units a minute per API key (A uses one key per activity), the 1 MiB record, the 1 GiB file.
 */
export interface NoisyNeighbourProfile {
  name: 'short' | 'long';
  /** How long each run of B's mix lasts. */
  mixMs: number;
  /** A alone before B's second run: its imports get going and its webhook backlog builds. */
  leadMs: number;
  /**
   * B's mix: reads a second (over 100 a run, so that p99 is not just the slowest one), payments and
   * 10-debtor batches spread over the run, one import of `importRows` rows enqueued `importAtMs` into it.
   */
  readsPerSecond: number;
  payments: number;
  batches: number;
  importRows: number;
  importAtMs: number;
  /** A's backlog: `largeImports` imports of `largeImportRows` rows each, queued at once after its poison files. */
  largeImports: number;
  largeImportRows: number;
  /** Size of A's file whose quote never closes. */
  unclosedQuoteMiB: number;
  /** Payments and calls (each) of the portfolio A scans with date filters. */
  scanRows: number;
  /** After the load stops: how long A's backlog may still run before an import counts as stuck. */
  settleMs: number;
}

export const SHORT_NOISY_PROFILE: NoisyNeighbourProfile = {
  name: 'short', mixMs: 35_000, leadMs: 6_000, readsPerSecond: 3, payments: 10, batches: 2, importRows: 100, importAtMs: 5_000,
  largeImports: 4, largeImportRows: 20_000, unclosedQuoteMiB: 20, scanRows: 20_000, settleMs: 60_000,
};

export const LONG_NOISY_PROFILE: NoisyNeighbourProfile = {
  name: 'long', mixMs: 90_000, leadMs: 15_000, readsPerSecond: 3, payments: 30, batches: 6, importRows: 100, importAtMs: 15_000,
  largeImports: 8, largeImportRows: 40_000, unclosedQuoteMiB: 200, scanRows: 100_000, settleMs: 300_000,
};

/** Units a minute each of A's keys spends: just under the documented 300, so a clock minute never refuses it. */
export const A_UNITS_PER_MINUTE = 290;

/** Poison files and B's imports end within this of their enqueue (ADR 0043: such a file fails at once). */
export const PROMPT_IMPORT_DEADLINE_MS = 60_000;

/**
 * Every service's settings: the documented defaults (README, Configure) where Stack shortens them for
 * tests, so A meets the limits as deployed; receivers on 127.0.0.1 (development stacks only).
 */
export const NOISY_ENV: Record<string, string> = {
  DATABASE_POOL_SIZE: '10',
  NATS_REQUEST_TIMEOUT_MS: '10000',
  DATABASE_STATEMENT_TIMEOUT_MS: '5000',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
};

/** The idempotency Redis as compose runs it (docker-compose.yml `redis-idempotency`). */
export const IDEMPOTENCY_REDIS_ARGS = ['--maxmemory', '256mb', '--maxmemory-policy', 'allkeys-lru'];
/** The main Redis as compose runs it: no maxmemory, nothing evicted (BullMQ's queues). */
export const MAIN_REDIS_ARGS = ['--maxmemory-policy', 'noeviction'];
/** The importer's memory limit in the Kubernetes base (deploy/kubernetes/base/importer-deployment.yaml). */
export const IMPORTER_LIMIT_MIB = 512;
