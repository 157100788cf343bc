import { readFileSync } from 'node:fs';
import { MIN_TOKEN_LENGTH, weakKeyReason, weakTokenReason } from './secret-strength';

/**
 * All configuration, read once from the environment and validated at start-up. Code receives the
 * typed `AppConfig` and never reads `process.env` itself. Defaults serve local development.
 */
export type NodeEnv = 'development' | 'test' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** `json`: one object per line (production, any collector); `pretty`: pino-pretty, for a developer's terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * About 15 request log lines: one write to stdout instead of one per line. Each write to a pipe (a
 * container's stdout) cost more than serialising the line: 0.1 ms of api-core's CPU per debtor page
 * (docs/adr/0034).
 */
export const DEFAULT_LOG_BUFFER_BYTES = 4096;
/** pino's stream (sonic-boom) refuses a buffer as large as its largest write, 16 KiB. */
export const MAX_LOG_BUFFER_BYTES = 16_383;

/**
 * Idempotency-Key records kept per API key (docs/adr/0009, docs/scaling.md). At the rate limit's
 * most (300 units a minute: 300 small writes, or 300 × 50 debtors of batches at ~2.7 KB a record),
 * either bound still reaches back about 16 minutes; a key that writes less keeps its 24 h.
 */
export const DEFAULT_IDEMPOTENCY_MAX_RECORDS = 5_000;
export const DEFAULT_IDEMPOTENCY_MAX_BYTES = 16 * 1024 * 1024;

/** The load flow's defaults, documented with the other limits in one table (OpenAPI, docs/imports.md "Limits"). */
export const IMPORT_DEFAULTS = {
  uploadTtlSeconds: 3_600,
  maxFileBytes: 1024 * 1024 * 1024,
  chunkRows: 5_000,
  maxRows: 10_000_000,
  maxAttempts: 5,
  maxRunningPerOrganization: 1,
} as const;

export interface AppConfig {
  env: NodeEnv;
  logLevel: LogLevel;
  /** LOG_FORMAT (logFormatOf): pretty only outside production; by default in development on a terminal. */
  logFormat: LogFormat;
  /**
   * LOG_BUFFER_BYTES: log lines gather in memory up to this many bytes (for 100 ms at most) before
   * one write to stdout; 0 writes each line at once (libs/observability/src/logger.ts).
   */
  logBufferBytes: number;
  /** Service name in every log line. */
  serviceName: string;
  /** RUNTIME_PATCHES_OFF (runtimePatchesOff): the runtime patches this process leaves out (docs/runtime-patches.md). */
  runtimePatchesOff: ReadonlySet<RuntimePatchName>;
  database: {
    url: string;
    poolSize: number;
    /** Postgres `statement_timeout`; also the timeout of a whole interactive transaction. */
    statementTimeoutMs: number;
    lockTimeoutMs: number;
    idleInTransactionTimeoutMs: number;
    /** Waiting for a pool connection (a free slot or a new connection). */
    connectTimeoutMs: number;
    /** TLS with a private CA (DATABASE_SSL_CA_FILE); otherwise `sslmode` in the URL decides (docs/adr/0027). */
    ssl?: DatabaseTls;
    /**
     * DATABASE_PREPARED_STATEMENTS (default true): hot reads as named prepared statements. Off behind
     * PgBouncer in transaction pooling before 1.21, where a name prepared on one server connection is
     * unknown on the next (docs/adr/0033).
     */
    preparedStatements: boolean;
    /** Read replicas for the public reads, with read-your-writes (docs/adr/0050); none by default. */
    replicas: ReplicaConfig;
  };
  redis: RedisConfig;
  /** Where the gateway keeps Idempotency-Key records: a Redis of its own, or the main one (docs/adr/0027). */
  idempotencyRedis: RedisConfig & { separate: boolean };
  nats: NatsConfig;
  apiCore: { maxConcurrency: number; postgresProbeIntervalMs: number };
  gateway: {
    port: number;
    operatorPort: number;
    host: string;
    operatorToken: string;
    publicBaseUrl: string;
    authCacheTtlMs: number;
    trustRequestId: boolean;
    /** Fastify `trustProxy`: whose X-Forwarded-For names the client (failed-auth limit per address). */
    trustProxy: boolean | number | string;
    /** Failed authentications per client address per clock minute before 429 (0: no limit). */
    authFailuresPerMinute: number;
    http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number };
    /** Public responses of at least this many bytes are compressed (br or gzip) when the client accepts it; 0 turns it off. */
    compressMinBytes: number;
  };
  rateLimit: { unitsPerMinute: number; failOpen: boolean };
  idempotency: {
    ttlSeconds: number;
    waitMs: number;
    leaseMs: number;
    /**
     * Per API key: at most this many records and bytes (compressed record + Idempotency-Key); past
     * either, that key's own oldest records are dropped (docs/adr/0009).
     */
    maxRecordsPerKey: number;
    maxBytesPerKey: number;
  };
  webhooks: WebhookConfig;
  storage: StorageConfig;
  imports: ImportConfig;
  erasure: ErasureConfig;
  health: { port: number };
  /** Bearer token that may read `/metrics` (besides the operator token): a scrape-only credential. */
  metricsToken: string;
  shutdownGraceMs: number;
}

/** One Redis server as a service reaches it (docs/adr/0027): each service has its own ACL user. */
export interface RedisConfig {
  /** redis:// or rediss:// (TLS). */
  url: string;
  keyPrefix: string;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  /** ACL user and its password (REDIS_USERNAME / REDIS_PASSWORD, or the URL's user info). */
  username?: string;
  password?: string;
  /** With a rediss:// URL: the CA that signed the server's certificate (PEM), when not a public one. */
  tlsCa?: string;
}

/** DATABASE_REPLICA_*: the replicas api-core reads from (docs/adr/0050). */
export interface ReplicaConfig {
  /** DATABASE_REPLICA_URLS: comma-separated postgresql:// URLs, each with DATABASE_PASSWORD when it names none. */
  urls: string[];
  /** DATABASE_REPLICA_MAX_LAG_MS: a replica further behind leaves the rotation until it catches up. */
  maxLagMs: number;
  /** DATABASE_REPLICA_WAIT_MS: how long a key's read after its own write waits for a replica before the primary serves it. */
  waitMs: number;
  /** DATABASE_REPLICA_PROBE_MS: how often each replica's position and lag are measured. */
  probeIntervalMs: number;
}

/** Postgres TLS with a CA of its own (PEM); `verifyHostname` false for sslmode=verify-ca. */
export interface DatabaseTls {
  ca: string;
  verifyHostname: boolean;
}

/** NATS as a service reaches it, and the key that signs requests to api-core (docs/adr/0026). */
export interface NatsConfig {
  /**
   * NATS_URL: one server or a comma-separated list of the servers of one NATS cluster, each nats://
   * or tls:// (TLS required; then every one of them). nats.js connects to one and fails over to the others.
   */
  servers: string[];
  subjectPrefix: string;
  requestTimeoutMs: number;
  /** The service's NATS user (NATS_USER / NATS_PASSWORD); absent in development and tests. */
  user?: string;
  password?: string;
  /** Set when TLS is required: a tls:// URL or any NATS_TLS_*_FILE; PEM texts read from those files. */
  tls?: { ca?: string; cert?: string; key?: string };
  /** INTERNAL_SIGNING_KEY signs (gateway) and verifies (api-core); INTERNAL_SIGNING_KEYS_PREVIOUS still verify. */
  signingKeys: { current: Buffer; previous: Buffer[] };
}

/** Webhook registration (api-core) and delivery (webhook-dispatcher); docs/adr/0020. */
export interface WebhookConfig {
  /** AES-256-GCM key (32 bytes) that encrypts webhook secrets at rest. */
  secretKey: Buffer;
  /** Older keys still accepted for decryption while secrets are re-encrypted (key rotation). */
  previousSecretKeys: Buffer[];
  /** Development and tests only: deliver to http:// and to private addresses. Refused in production. */
  allowPrivateTargets: boolean;
  /** Each attempt's timeout (spec: 10 s). */
  attemptTimeoutMs: number;
  /** Attempts per series (spec: 5). */
  maxAttempts: number;
  /** Delay between attempts (spec: about 90 s) and the random jitter added to or taken from it. */
  retryDelayMs: number;
  retryJitterMs: number;
  /** Concurrent deliveries per dispatcher process. */
  concurrency: number;
  /** The percentage of `concurrency` one organization's attempts to slow receivers may hold in a process (docs/adr/0044). */
  organizationSharePercent: number;
  /** How often the relay polls the outbox when it is idle, and how many events it takes at once. */
  relayIntervalMs: number;
  relayBatchSize: number;
  /** Relayed events, with their finished deliveries and attempts, are deleted after this many days. */
  retentionDays: number;
  /**
   * A webhook whose every attempt has failed for this long (since its `failing_since`) is disabled
   * by the dispatcher (docs/adr/0048): WEBHOOK_DISABLE_AFTER_DAYS (5) in seconds, or
   * WEBHOOK_DISABLE_AFTER_SECONDS when set (tests shorten it).
   */
  disableAfterSeconds: number;
}

/** Where uploaded CSV files live (docs/adr/0021): one directory on one machine, or an S3 bucket. */
export interface StorageConfig {
  driver: 'local' | 's3';
  local: {
    /** Files are written under this directory (created if missing). */
    dir: string;
    /** HMAC-SHA256 key that signs the gateway's upload URLs (32 bytes). */
    signingKey: Buffer;
  };
  s3: {
    /** S3-compatible endpoint (MinIO, s3rver); empty for AWS. */
    endpoint: string;
    /** The endpoint clients reach, when it differs from `endpoint` (compose: http://localhost:9000 vs http://minio:9000); upload URLs are signed for it. */
    publicEndpoint: string;
    region: string;
    bucket: string;
    accessKeyId: string;
    secretAccessKey: string;
    /** Path-style URLs (bucket in the path): needed by MinIO and most S3-compatible servers. */
    forcePathStyle: boolean;
  };
}

/** The portfolio load flow (docs/imports.md). */
export interface ImportConfig {
  /** How long an upload URL, and its storageKey, stay valid. */
  uploadTtlSeconds: number;
  /** The largest CSV file accepted, in bytes. */
  maxFileBytes: number;
  /** Rows per committed chunk: a killed importer resumes after the last one. */
  chunkRows: number;
  /** Imports processed at once by one importer process. */
  concurrency: number;
  /** statement_timeout of the importer's merge statements (they write a chunk, or a whole replace). */
  statementTimeoutMs: number;
  /** After an import that wrote at least this many rows, the planner's statistics are refreshed. */
  analyzeAfterRows: number;
  /** Data rows a file may have; past it the import ends failed (the rows before it are loaded). */
  maxRows: number;
  /** Runs that may start and not end an import (crashes included) before it ends failed. */
  maxAttempts: number;
  /** Imports of one organization running at once, over the whole importer fleet. */
  maxRunningPerOrganization: number;
}

/** Tombstones of erased data subjects (docs/adr/0025). */
export interface ErasureConfig {
  /** HMAC-SHA256 key (32 bytes) of the tombstones; never rotated (old tombstones could no longer be matched). */
  hmacKey: Buffer;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const DEV_OPERATOR_TOKEN = 'dev-operator-token';
/** Development only (refused in production): 32 bytes, base64. */
const DEV_WEBHOOK_SECRET_KEY = 'ZGV2LXdlYmhvb2stc2VjcmV0LWtleS0zMi1ieXRlcyE=';
/** Development only (refused in production): 32 bytes, base64. */
const DEV_INTERNAL_SIGNING_KEY = 'ZGV2LWludGVybmFsLXNpZ25pbmcta2V5LTMyLWJ5dGU=';
/** Development only (refused in production): 32 bytes, base64. */
const DEV_ERASURE_HMAC_KEY = 'ZGV2LWVyYXN1cmUtdG9tYnN0b25lLWhtYWMta2V5ISE=';
/** Development only (refused in production): 32 bytes, base64. */
const DEV_STORAGE_SIGNING_KEY = 'ZGV2LXVwbG9hZC1zaWduaW5nLWtleS0zMi1ieXRlcyE=';
/** Distinct defaults so all services can run side by side on one development machine. */
const DEFAULT_HEALTH_PORTS: Record<string, number> = { 'api-core': 3100, importer: 3101, 'webhook-dispatcher': 3102 };

class Reader {
  readonly problems: string[] = [];
  /** Set once NODE_ENV is read: production refuses weak keys. */
  production = false;
  constructor(private readonly env: Record<string, string | undefined>) {}

  /**
   * A variable's value; `<NAME>_FILE` names a file holding it instead (Docker and Kubernetes
   * secrets mounted as files), and wins when both are set.
   */
  private raw(name: string): string | undefined {
    const file = this.env[`${name}_FILE`]?.trim();
    if (file) {
      try {
        const text = readFileSync(file, 'utf8').trim();
        if (text) return text;
        this.problems.push(`${name}_FILE names an empty file (${file})`);
      } catch (err) {
        this.problems.push(`${name}_FILE names a file that cannot be read (${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      return undefined;
    }
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name) ?? fallback;
    if (!allowed.includes(value as T)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const text = this.raw(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${text}")`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const text = this.raw(name);
    if (text === undefined) return fallback;
    if (['true', '1', 'yes'].includes(text.toLowerCase())) return true;
    if (['false', '0', 'no'].includes(text.toLowerCase())) return false;
    this.problems.push(`${name} must be true or false (got "${text}")`);
    return fallback;
  }

  /** A 32-byte key given in base64 (for example `openssl rand -base64 32`). */
  key(name: string, fallback: string): Buffer {
    const text = this.raw(name) ?? fallback;
    const key = Buffer.from(text, 'base64');
    if (key.length !== 32 || key.toString('base64') !== text) {
      this.problems.push(`${name} must be 32 bytes in base64, for example the output of "openssl rand -base64 32"`);
      return Buffer.alloc(32);
    }
    const weak = this.production && this.raw(name) !== undefined ? weakKeyReason(key) : undefined;
    if (weak) this.problems.push(`${name} ${weak}`);
    return key;
  }

  /** The text of a file named by a variable (a CA certificate), or undefined when the variable is unset. */
  fileText(name: string): string | undefined {
    const file = this.raw(name);
    if (!file) return undefined;
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      this.problems.push(`${name} names a file that cannot be read (${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      return undefined;
    }
  }

  url(name: string, fallback: string, protocols: string[]): string {
    return this.checkedUrl(name, this.raw(name) ?? fallback, protocols);
  }

  /** `text` as the URL named `name` (a variable, or one entry of a list variable), problems recorded. */
  checkedUrl(name: string, text: string, protocols: string[]): string {
    try {
      const parsed = new URL(text);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
      }
    } catch {
      this.problems.push(`${name} must be a URL (got a value that does not parse)`);
    }
    return text;
  }
}

export function loadConfig(
  serviceName: string,
  env: Record<string, string | undefined> = process.env,
  /** Whether stdout is a terminal (the default LOG_FORMAT in development depends on it). */
  stdoutIsTty = Boolean(process.stdout.isTTY),
): AppConfig {
  const r = new Reader(env);
  const nodeEnv = r.oneOf<NodeEnv>('NODE_ENV', ['development', 'test', 'production'], 'development');
  r.production = nodeEnv === 'production';
  // The gateway needs the operator token (the operator API); the other apps only accept it, when
  // given, on /metrics beside METRICS_TOKEN, so a production pod holds it only where it serves.
  const operatorToken = r.string('OPERATOR_TOKEN', '');
  if (nodeEnv === 'production' && (serviceName === 'gateway' || operatorToken)) {
    const weak = operatorToken ? weakTokenReason(operatorToken) : 'is required';
    if (weak) r.problems.push(`OPERATOR_TOKEN ${weak} in production (at least ${MIN_TOKEN_LENGTH} random characters: "openssl rand -base64 32")`);
  }
  const port = r.int('PORT', 3000, 0, 65535);
  const config: AppConfig = {
    env: nodeEnv,
    logLevel: r.oneOf<LogLevel>('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    logFormat: logFormatOf(r, nodeEnv, stdoutIsTty),
    logBufferBytes: r.int('LOG_BUFFER_BYTES', DEFAULT_LOG_BUFFER_BYTES, 0, MAX_LOG_BUFFER_BYTES),
    serviceName,
    runtimePatchesOff: runtimePatchesOff(r),
    database: {
      poolSize: r.int('DATABASE_POOL_SIZE', 10, 1, 200),
      statementTimeoutMs: r.int('DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000),
      lockTimeoutMs: r.int('DATABASE_LOCK_TIMEOUT_MS', 4_000, 100, 600_000),
      idleInTransactionTimeoutMs: r.int('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 10_000, 1_000, 600_000),
      connectTimeoutMs: r.int('DATABASE_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
      preparedStatements: r.bool('DATABASE_PREPARED_STATEMENTS', true),
      ...databaseCredentials(r, nodeEnv, serviceName),
      replicas: replicaConfig(r),
    },
    ...redisConfig(r, nodeEnv, serviceName),
    nats: natsConfig(r, nodeEnv, serviceName),
    apiCore: {
      maxConcurrency: r.int('API_CORE_MAX_CONCURRENCY', 64, 1, 10_000),
      postgresProbeIntervalMs: r.int('API_CORE_POSTGRES_PROBE_MS', 2_000, 100, 60_000),
    },
    gateway: {
      port,
      operatorPort: r.int('OPERATOR_PORT', 3001, 0, 65535),
      host: r.string('HOST', '0.0.0.0'),
      // Never the development default in production: an empty token matches no bearer.
      operatorToken: operatorToken || (nodeEnv === 'production' ? '' : DEV_OPERATOR_TOKEN),
      publicBaseUrl: r.url('PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']),
      authCacheTtlMs: r.int('AUTH_CACHE_TTL_MS', 60_000, 0, 60_000),
      // Off by default: a client could take another request's id (and its log lines). On only behind an edge that sets its own.
      trustRequestId: r.bool('TRUST_REQUEST_ID', false),
      trustProxy: trustProxy(r.string('TRUST_PROXY', 'false')),
      authFailuresPerMinute: r.int('AUTH_FAILURES_PER_MINUTE', 60, 0, 1_000_000),
      http: {
        headersTimeoutMs: r.int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
        requestTimeoutMs: r.int('HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
        keepAliveTimeoutMs: r.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 100, 600_000),
        idleTimeoutMs: r.int('HTTP_IDLE_TIMEOUT_MS', 120_000, 100, 600_000),
      },
      compressMinBytes: r.int('HTTP_COMPRESS_MIN_BYTES', 1024, 0, 100_000_000),
    },
    rateLimit: {
      unitsPerMinute: r.int('RATE_LIMIT_PER_MINUTE', 300, 1, 1_000_000),
      failOpen: r.bool('RATE_LIMIT_FAIL_OPEN', true),
    },
    idempotency: {
      ttlSeconds: r.int('IDEMPOTENCY_TTL_SECONDS', 86_400, 60, 604_800),
      waitMs: r.int('IDEMPOTENCY_WAIT_MS', 30_000, 100, 120_000),
      leaseMs: r.int('IDEMPOTENCY_LEASE_MS', 60_000, 1_000, 600_000),
      maxRecordsPerKey: r.int('IDEMPOTENCY_MAX_RECORDS_PER_KEY', DEFAULT_IDEMPOTENCY_MAX_RECORDS, 1, 1_000_000),
      maxBytesPerKey: r.int('IDEMPOTENCY_MAX_BYTES_PER_KEY', DEFAULT_IDEMPOTENCY_MAX_BYTES, 1_024, 1024 * 1024 * 1024),
    },
    webhooks: webhookConfig(r, nodeEnv, serviceName),
    storage: storageConfig(r, nodeEnv, serviceName),
    imports: {
      uploadTtlSeconds: r.int('IMPORT_UPLOAD_TTL_SECONDS', IMPORT_DEFAULTS.uploadTtlSeconds, 10, 604_800),
      maxFileBytes: r.int('IMPORT_MAX_FILE_BYTES', IMPORT_DEFAULTS.maxFileBytes, 1, 5 * 1024 * 1024 * 1024),
      chunkRows: r.int('IMPORT_CHUNK_ROWS', IMPORT_DEFAULTS.chunkRows, 1, 100_000),
      concurrency: r.int('IMPORT_CONCURRENCY', 1, 1, 64),
      statementTimeoutMs: r.int('IMPORT_STATEMENT_TIMEOUT_MS', 600_000, 1_000, 3_600_000),
      analyzeAfterRows: r.int('IMPORT_ANALYZE_AFTER_ROWS', 10_000, 0, 100_000_000),
      maxRows: r.int('IMPORT_MAX_ROWS', IMPORT_DEFAULTS.maxRows, 1, 100_000_000),
      maxAttempts: r.int('IMPORT_MAX_ATTEMPTS', IMPORT_DEFAULTS.maxAttempts, 1, 100),
      maxRunningPerOrganization: r.int('IMPORT_MAX_RUNNING_PER_ORGANIZATION', IMPORT_DEFAULTS.maxRunningPerOrganization, 1, 64),
    },
    erasure: erasureConfig(r, nodeEnv, serviceName),
    health: { port: r.int('HEALTH_PORT', DEFAULT_HEALTH_PORTS[serviceName] ?? 3100, 0, 65535) },
    metricsToken: metricsToken(r, nodeEnv),
    shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 10_000, 0, 120_000),
  };
  if (config.idempotency.leaseMs <= config.nats.requestTimeoutMs) {
    r.problems.push(
      `IDEMPOTENCY_LEASE_MS (${config.idempotency.leaseMs}) must be longer than NATS_REQUEST_TIMEOUT_MS (${config.nats.requestTimeoutMs}): ` +
        'a request that times out at the gateway keeps its Idempotency-Key claimed for the lease while api-core may still run it',
    );
  } else if (config.idempotency.leaseMs <= longestServerRunMs(config)) {
    r.problems.push(
      `IDEMPOTENCY_LEASE_MS (${config.idempotency.leaseMs}) must be longer than the longest server-side run, ${longestServerRunMs(config)} ms ` +
        '(NATS_REQUEST_TIMEOUT_MS + DATABASE_CONNECT_TIMEOUT_MS + DATABASE_STATEMENT_TIMEOUT_MS, docs/adr/0014)',
    );
  }
  // api-core's callers give up after NATS_REQUEST_TIMEOUT_MS: a statement must end well before.
  if (serviceName === 'api-core' && config.database.statementTimeoutMs >= config.nats.requestTimeoutMs) {
    r.problems.push(
      `DATABASE_STATEMENT_TIMEOUT_MS (${config.database.statementTimeoutMs}) must be shorter than NATS_REQUEST_TIMEOUT_MS ` +
        `(${config.nats.requestTimeoutMs}), so that database work ends before its caller gives up`,
    );
  }
  const http = config.gateway.http;
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    r.problems.push(`HTTP_HEADERS_TIMEOUT_MS (${http.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`);
  }
  if (http.idleTimeoutMs <= config.nats.requestTimeoutMs) {
    r.problems.push(
      `HTTP_IDLE_TIMEOUT_MS (${http.idleTimeoutMs}) must be longer than NATS_REQUEST_TIMEOUT_MS (${config.nats.requestTimeoutMs}): ` +
        'a connection is silent while its request runs',
    );
  }
  if (r.problems.length) throw new ConfigError(r.problems);
  return config;
}

/** The services that connect to Postgres (the gateway does not). */
const DATABASE_SERVICES = ['api-core', 'importer', 'webhook-dispatcher'];

/** The services that connect to Redis (all four). */
const REDIS_SERVICES = ['gateway', 'api-core', 'importer', 'webhook-dispatcher'];

/**
 * Redis connections (docs/adr/0027): each service logs in as its own ACL user with REDIS_USERNAME
 * and REDIS_PASSWORD (or `<NAME>_FILE`); production refuses a connection without a strong password.
 * The gateway's Idempotency-Key records live in a Redis of their own (IDEMPOTENCY_REDIS_URL, with a
 * memory bound; required in production), each IDEMPOTENCY_REDIS_* setting defaulting to its REDIS_* counterpart.
 */
/**
 * REDIS_KEY_PREFIX: the characters docker/redis/acl.js can write into a key pattern, and no braces:
 * the BullMQ prefix wraps it in a Redis Cluster hash tag (bullPrefix, docs/adr/0033).
 */
function redisKeyPrefix(r: Reader): string {
  const prefix = r.string('REDIS_KEY_PREFIX', 'dc');
  if (!/^[A-Za-z0-9_.-]+$/.test(prefix)) r.problems.push(`REDIS_KEY_PREFIX may hold letters, digits, _ . and - only (got "${prefix}")`);
  return prefix;
}

function redisConfig(r: Reader, nodeEnv: NodeEnv, serviceName: string): Pick<AppConfig, 'redis' | 'idempotencyRedis'> {
  const redis = redisServer(r, nodeEnv, serviceName, 'REDIS', {
    url: 'redis://127.0.0.1:6379',
    keyPrefix: redisKeyPrefix(r),
    commandTimeoutMs: r.int('REDIS_COMMAND_TIMEOUT_MS', 1_000, 50, 60_000),
    connectTimeoutMs: r.int('REDIS_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
  });
  const separate = r.string('IDEMPOTENCY_REDIS_URL', '') !== '';
  if (nodeEnv === 'production' && serviceName === 'gateway' && !separate) {
    r.problems.push(
      'IDEMPOTENCY_REDIS_URL is required in production: Idempotency-Key records belong in a Redis of their own with maxmemory and ' +
        'allkeys-lru, never in the noeviction Redis of the queues (docs/adr/0027, docs/scaling.md)',
    );
  }
  const idempotencyRedis = separate && serviceName === 'gateway' ? redisServer(r, nodeEnv, serviceName, 'IDEMPOTENCY_REDIS', redis) : redis;
  return { redis, idempotencyRedis: { ...idempotencyRedis, separate } };
}

function redisServer(r: Reader, nodeEnv: NodeEnv, serviceName: string, prefix: string, base: RedisConfig): RedisConfig {
  const url = r.url(`${prefix}_URL`, base.url, ['redis:', 'rediss:']);
  let fromUrl: URL | undefined;
  try {
    fromUrl = new URL(url);
  } catch {
    fromUrl = undefined; // reported by r.url
  }
  const inherit = prefix !== 'REDIS';
  const username = r.string(`${prefix}_USERNAME`, '') || decodeURIComponent(fromUrl?.username ?? '') || (inherit ? base.username : undefined) || undefined;
  const password = r.string(`${prefix}_PASSWORD`, '') || decodeURIComponent(fromUrl?.password ?? '') || (inherit ? base.password : undefined) || undefined;
  const tlsCa = r.fileText(`${prefix}_TLS_CA_FILE`) ?? (inherit ? base.tlsCa : undefined);
  if (tlsCa && fromUrl && fromUrl.protocol !== 'rediss:') r.problems.push(`${prefix}_TLS_CA_FILE is set but ${prefix}_URL is not a rediss:// URL`);
  if (nodeEnv === 'production' && REDIS_SERVICES.includes(serviceName)) {
    const weak = password ? weakTokenReason(password) : 'is required';
    if (weak) r.problems.push(`${prefix}_PASSWORD ${weak} in production (the password of this service's Redis ACL user, docs/adr/0027)`);
  }
  return { ...base, url, username, password, tlsCa };
}

/**
 * DATABASE_PASSWORD (or DATABASE_PASSWORD_FILE) is put into DATABASE_URL, so the password need not
 * be written in the URL; DATABASE_SSL_CA_FILE: the CA of the server's certificate (docs/adr/0027).
 */
function databaseCredentials(r: Reader, nodeEnv: NodeEnv, serviceName: string): { url: string; ssl?: DatabaseTls } {
  let url = r.url('DATABASE_URL', 'postgresql://postgres@127.0.0.1:5432/debt_collection', ['postgresql:', 'postgres:']);
  const password = r.string('DATABASE_PASSWORD', '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined; // reported by r.url
  }
  if (parsed && password) {
    parsed.password = encodeURIComponent(password);
    url = parsed.toString();
  }
  const sslMode = parsed?.searchParams.get('sslmode') ?? undefined;
  const ca = r.fileText('DATABASE_SSL_CA_FILE');
  if (ca && sslMode === 'disable') r.problems.push('DATABASE_SSL_CA_FILE is set but DATABASE_URL has sslmode=disable');
  if (nodeEnv === 'production' && DATABASE_SERVICES.includes(serviceName) && parsed && !password && !parsed.password) {
    r.problems.push('DATABASE_PASSWORD (or a password in DATABASE_URL) is required in production: the app role logs in with a password (docs/adr/0027)');
  }
  return { url, ...(ca ? { ssl: { ca, verifyHostname: sslMode !== 'verify-ca' } } : {}) };
}

/**
 * DATABASE_REPLICA_*: each URL checked like DATABASE_URL and given DATABASE_PASSWORD when it names no
 * password (the replicas have the primary's roles). The wait stays below the lag bound: a read never
 * waits for a replica longer than one in rotation may lag.
 */
function replicaConfig(r: Reader): ReplicaConfig {
  const password = r.string('DATABASE_PASSWORD', '');
  const urls: string[] = [];
  for (const [index, text] of r.string('DATABASE_REPLICA_URLS', '').split(',').map((u) => u.trim()).filter(Boolean).entries()) {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      r.problems.push(`DATABASE_REPLICA_URLS: entry ${index + 1} is not a URL`);
      continue;
    }
    if (parsed.protocol !== 'postgresql:' && parsed.protocol !== 'postgres:') {
      r.problems.push(`DATABASE_REPLICA_URLS: entry ${index + 1} must be a postgresql:// URL (got ${parsed.protocol})`);
      continue;
    }
    if (password && !parsed.password) parsed.password = encodeURIComponent(password);
    urls.push(parsed.toString());
  }
  const maxLagMs = r.int('DATABASE_REPLICA_MAX_LAG_MS', 5_000, 100, 3_600_000);
  const waitMs = r.int('DATABASE_REPLICA_WAIT_MS', 50, 0, 60_000);
  if (waitMs > maxLagMs) r.problems.push(`DATABASE_REPLICA_WAIT_MS (${waitMs}) must not exceed DATABASE_REPLICA_MAX_LAG_MS (${maxLagMs})`);
  return { urls, maxLagMs, waitMs, probeIntervalMs: r.int('DATABASE_REPLICA_PROBE_MS', 1_000, 50, 60_000) };
}

/**
 * LOG_FORMAT: `pretty` by default only in development with stdout on a terminal (a developer
 * watching), `json` everywhere else (pipes, containers, tests). Production refuses `pretty`:
 * pino-pretty is a development dependency, absent from the images, and collectors expect JSON.
 */
function logFormatOf(r: Reader, nodeEnv: NodeEnv, stdoutIsTty: boolean): LogFormat {
  const format = r.oneOf<LogFormat>('LOG_FORMAT', ['json', 'pretty'], nodeEnv === 'development' && stdoutIsTty ? 'pretty' : 'json');
  if (format === 'pretty' && nodeEnv === 'production') {
    r.problems.push('LOG_FORMAT=pretty is for development only: production logs are JSON (pino-pretty is not installed in the images); unset LOG_FORMAT or set it to json');
    return 'json';
  }
  return format;
}

/**
 * Every process-wide patch of a library's internals and every V8 or heap flag the services set, by
 * the name RUNTIME_PATCHES_OFF turns it off with. What each does, what it gains and what to check
 * on a library upgrade: docs/runtime-patches.md.
 */
export const RUNTIME_PATCH_NAMES = [
  'v8-heap-flags',
  'gateway-old-space-floor',
  'young-generation-16mib',
  'wasm-liftoff-only',
  'pg-binary-columns',
  'nats-write-coalescing',
  'validation-metadata-cache',
  'compiled-validation',
] as const;
export type RuntimePatchName = (typeof RUNTIME_PATCH_NAMES)[number];

/**
 * RUNTIME_PATCHES_OFF: empty (every patch on, the default), `all`, or a comma-separated list of
 * names. The system is correct without any of them (CI runs end-to-end tests with `all`); they only
 * save CPU or memory. Unknown names are answered apart, for the caller to refuse.
 */
export function parseRuntimePatchesOff(text = ''): { off: ReadonlySet<RuntimePatchName>; unknown: string[] } {
  const trimmed = text.trim();
  if (trimmed === '') return { off: new Set(), unknown: [] };
  if (trimmed === 'all') return { off: new Set(RUNTIME_PATCH_NAMES), unknown: [] };
  const names = trimmed.split(',').map((name) => name.trim());
  const known = (name: string): name is RuntimePatchName => (RUNTIME_PATCH_NAMES as readonly string[]).includes(name);
  return { off: new Set(names.filter(known)), unknown: names.filter((name) => !known(name)) };
}

/** RUNTIME_PATCHES_OFF, an unknown name refused: a typo must never leave a patch silently on. */
function runtimePatchesOff(r: Reader): ReadonlySet<RuntimePatchName> {
  const { off, unknown } = parseRuntimePatchesOff(r.string('RUNTIME_PATCHES_OFF', ''));
  if (unknown.length > 0) {
    r.problems.push(`RUNTIME_PATCHES_OFF names unknown patches (${unknown.join(', ')}): use "all" or a comma-separated list of ${RUNTIME_PATCH_NAMES.join(', ')}`);
  }
  return off;
}

function metricsToken(r: Reader, nodeEnv: NodeEnv): string {
  const token = r.string('METRICS_TOKEN', '');
  const weak = token && nodeEnv === 'production' ? weakTokenReason(token) : undefined;
  if (weak) r.problems.push(`METRICS_TOKEN ${weak} in production (or leave it unset: /metrics then takes the operator token only)`);
  return token;
}

/** The services that use NATS: each has its own NATS user (docs/adr/0026); the others need none. */
const NATS_SERVICES = ['gateway', 'api-core'];

/**
 * NATS_URL as a list: the seed servers of a NATS cluster (nats.js learns the rest from the cluster's
 * INFO and fails over between them). TLS is one option of the connection, so the URLs are either
 * all tls:// or all nats://.
 */
function natsServers(r: Reader): string[] {
  const text = r.string('NATS_URL', 'nats://127.0.0.1:4222');
  const servers = text.split(',').map((s) => s.trim());
  if (servers.some((s) => s === '')) {
    r.problems.push(`NATS_URL must be one URL or a comma-separated list of URLs without empty entries (got "${text}")`);
    return servers.filter((s) => s !== '');
  }
  servers.forEach((server, i) => r.checkedUrl(servers.length > 1 ? `NATS_URL entry ${i + 1}` : 'NATS_URL', server, ['nats:', 'tls:']));
  const tls = servers.filter((s) => s.startsWith('tls:')).length;
  if (tls > 0 && tls < servers.length) r.problems.push('NATS_URL mixes tls:// and nats:// servers: TLS is required of all of them or of none');
  return servers;
}

function natsConfig(r: Reader, nodeEnv: NodeEnv, serviceName: string): NatsConfig {
  const servers = natsServers(r);
  const user = r.string('NATS_USER', '');
  const password = r.string('NATS_PASSWORD', '');
  if (Boolean(user) !== Boolean(password)) r.problems.push('NATS_USER and NATS_PASSWORD must be set together (the service\'s NATS user, docs/adr/0026)');
  const keyText = r.string('INTERNAL_SIGNING_KEY', '');
  if (nodeEnv === 'production' && NATS_SERVICES.includes(serviceName)) {
    if (!user) r.problems.push('NATS_USER and NATS_PASSWORD are required in production: the NATS user of this service (docs/adr/0026)');
    const weak = password ? weakTokenReason(password) : undefined;
    if (weak) r.problems.push(`NATS_PASSWORD ${weak} in production`);
    if (!keyText || keyText === DEV_INTERNAL_SIGNING_KEY) {
      r.problems.push('INTERNAL_SIGNING_KEY is required in production: it signs requests from the gateway to api-core (32 bytes in base64: "openssl rand -base64 32")');
    }
  }
  const ca = r.fileText('NATS_TLS_CA_FILE');
  const cert = r.fileText('NATS_TLS_CERT_FILE');
  const key = r.fileText('NATS_TLS_KEY_FILE');
  if (Boolean(cert) !== Boolean(key)) r.problems.push('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE must be set together (a client certificate and its key)');
  const tlsWanted = servers.some((s) => s.startsWith('tls:')) || ca !== undefined || cert !== undefined || key !== undefined;
  const previous = r.string('INTERNAL_SIGNING_KEYS_PREVIOUS', '');
  return {
    servers,
    subjectPrefix: r.string('NATS_SUBJECT_PREFIX', 'dc'),
    requestTimeoutMs: r.int('NATS_REQUEST_TIMEOUT_MS', 10_000, 100, 120_000),
    ...(user ? { user, password } : {}),
    ...(tlsWanted ? { tls: { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) } } : {}),
    signingKeys: {
      current: r.key('INTERNAL_SIGNING_KEY', keyText || DEV_INTERNAL_SIGNING_KEY),
      previous: previous ? previous.split(',').map((k, i) => r.key(`INTERNAL_SIGNING_KEYS_PREVIOUS[${i}]`, k.trim())) : [],
    },
  };
}

/** The services that register (api-core) or send (webhook-dispatcher) webhooks. */
const WEBHOOK_SERVICES = ['api-core', 'webhook-dispatcher'];

function webhookConfig(r: Reader, nodeEnv: NodeEnv, serviceName: string): WebhookConfig {
  const keyText = r.string('WEBHOOK_SECRET_KEY', '');
  const allowPrivateTargets = r.bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', false);
  if (nodeEnv === 'production' && WEBHOOK_SERVICES.includes(serviceName)) {
    if (!keyText || keyText === DEV_WEBHOOK_SECRET_KEY) {
      r.problems.push('WEBHOOK_SECRET_KEY is required in production (32 bytes in base64: "openssl rand -base64 32")');
    }
    if (allowPrivateTargets) {
      r.problems.push('WEBHOOK_ALLOW_PRIVATE_TARGETS must not be set in production: it lets webhooks reach http:// and private addresses');
    }
  }
  const previous = r.string('WEBHOOK_SECRET_KEYS_PREVIOUS', '');
  return {
    secretKey: r.key('WEBHOOK_SECRET_KEY', keyText || DEV_WEBHOOK_SECRET_KEY),
    previousSecretKeys: previous
      ? previous.split(',').map((k, i) => r.key(`WEBHOOK_SECRET_KEYS_PREVIOUS[${i}]`, k.trim()))
      : [],
    allowPrivateTargets,
    attemptTimeoutMs: r.int('WEBHOOK_ATTEMPT_TIMEOUT_MS', 10_000, 100, 60_000),
    maxAttempts: r.int('WEBHOOK_MAX_ATTEMPTS', 5, 1, 20),
    retryDelayMs: r.int('WEBHOOK_RETRY_DELAY_MS', 90_000, 0, 86_400_000),
    retryJitterMs: r.int('WEBHOOK_RETRY_JITTER_MS', 10_000, 0, 3_600_000),
    concurrency: r.int('WEBHOOK_CONCURRENCY', 200, 1, 5_000),
    organizationSharePercent: r.int('WEBHOOK_ORGANIZATION_SHARE_PERCENT', 50, 1, 100),
    relayIntervalMs: r.int('WEBHOOK_RELAY_INTERVAL_MS', 250, 10, 60_000),
    relayBatchSize: r.int('WEBHOOK_RELAY_BATCH_SIZE', 500, 1, 10_000),
    retentionDays: r.int('WEBHOOK_RETENTION_DAYS', 30, 1, 3_650),
    disableAfterSeconds: r.int('WEBHOOK_DISABLE_AFTER_SECONDS', r.int('WEBHOOK_DISABLE_AFTER_DAYS', 5, 1, 365) * 86_400, 1, 365 * 86_400),
  };
}

/** The services that write (api-core) or check (api-core, importer) erasure tombstones. */
const ERASURE_SERVICES = ['api-core', 'importer'];

function erasureConfig(r: Reader, nodeEnv: NodeEnv, serviceName: string): ErasureConfig {
  const keyText = r.string('ERASURE_HMAC_KEY', '');
  if (nodeEnv === 'production' && ERASURE_SERVICES.includes(serviceName) && (!keyText || keyText === DEV_ERASURE_HMAC_KEY)) {
    r.problems.push('ERASURE_HMAC_KEY is required in production (32 bytes in base64: "openssl rand -base64 32"; the same value for api-core and importer, never changed)');
  }
  return { hmacKey: r.key('ERASURE_HMAC_KEY', keyText || DEV_ERASURE_HMAC_KEY) };
}

/** The services that sign upload URLs or read uploaded files. */
const STORAGE_SERVICES = ['gateway', 'api-core', 'importer'];

function storageConfig(r: Reader, nodeEnv: NodeEnv, serviceName: string): StorageConfig {
  const driver = r.oneOf<'local' | 's3'>('STORAGE_DRIVER', ['local', 's3'], 'local');
  const signingKeyText = r.string('STORAGE_SIGNING_KEY', '');
  const bucket = r.string('S3_BUCKET', '');
  const endpoint = r.string('S3_ENDPOINT', '');
  if (endpoint) r.url('S3_ENDPOINT', endpoint, ['http:', 'https:']);
  const publicEndpoint = r.string('S3_PUBLIC_ENDPOINT', '');
  if (publicEndpoint) r.url('S3_PUBLIC_ENDPOINT', publicEndpoint, ['http:', 'https:']);
  if (STORAGE_SERVICES.includes(serviceName)) {
    if (driver === 'local' && nodeEnv === 'production' && (!signingKeyText || signingKeyText === DEV_STORAGE_SIGNING_KEY)) {
      r.problems.push('STORAGE_SIGNING_KEY is required in production with STORAGE_DRIVER=local (32 bytes in base64: "openssl rand -base64 32")');
    }
    if (driver === 's3' && !bucket) r.problems.push('S3_BUCKET is required with STORAGE_DRIVER=s3');
    if (driver === 's3' && nodeEnv === 'production') s3CredentialProblems(r);
  }
  return {
    driver,
    local: {
      dir: r.string('STORAGE_LOCAL_DIR', './var/uploads'),
      signingKey: r.key('STORAGE_SIGNING_KEY', signingKeyText || DEV_STORAGE_SIGNING_KEY),
    },
    s3: {
      endpoint,
      publicEndpoint,
      region: r.string('S3_REGION', 'us-east-1'),
      bucket,
      accessKeyId: r.string('S3_ACCESS_KEY_ID', ''),
      secretAccessKey: r.string('S3_SECRET_ACCESS_KEY', ''),
      forcePathStyle: r.bool('S3_FORCE_PATH_STYLE', true),
    },
  };
}

/** Access keys S3-compatible servers ship as their administrator's: never the apps' own. */
const DEFAULT_S3_ACCESS_KEYS = ['minioadmin', 'minio-dev-user', 'admin', 'root'];

/**
 * Production S3 credentials: none (the SDK's chain: IRSA, an instance role), or a non-default access
 * key with a strong secret. Whoever holds them reads every tenant's uploaded files.
 */
function s3CredentialProblems(r: Reader): void {
  const accessKeyId = r.string('S3_ACCESS_KEY_ID', '');
  const secret = r.string('S3_SECRET_ACCESS_KEY', '');
  if (!accessKeyId && !secret) return;
  if (DEFAULT_S3_ACCESS_KEYS.includes(accessKeyId.toLowerCase())) {
    r.problems.push("S3_ACCESS_KEY_ID is a storage server's default administrator in production: give the apps a user limited to the uploads bucket");
  }
  const weak = secret ? weakTokenReason(secret) : 'is required with S3_ACCESS_KEY_ID';
  if (weak) r.problems.push(`S3_SECRET_ACCESS_KEY ${weak} in production`);
}

/**
 * How long after the gateway sends a request api-core may still commit a write for it
 * (docs/adr/0014): api-core takes no pool connection after the request's deadline (sent +
 * NATS_REQUEST_TIMEOUT_MS); getting one waits at most DATABASE_CONNECT_TIMEOUT_MS; then a statement
 * ends, and a transaction commits or is rolled back, within DATABASE_STATEMENT_TIMEOUT_MS.
 */
export function longestServerRunMs(config: Pick<AppConfig, 'nats' | 'database'>): number {
  return config.nats.requestTimeoutMs + config.database.connectTimeoutMs + config.database.statementTimeoutMs;
}

/**
 * TRUST_PROXY (Fastify `trustProxy`): a number of proxy hops in front of the gateway, a
 * comma-separated list of proxy addresses or CIDRs, or true/false.
 */
function trustProxy(value: string): boolean | number | string {
  const lower = value.toLowerCase();
  if (/^\d{1,2}$/.test(value)) return Number(value);
  if (['true', '1', 'yes'].includes(lower)) return true;
  if (['false', '0', 'no'].includes(lower)) return false;
  return value;
}

/** For a service's entry point: the config, or a clear message on stderr and exit code 78 (EX_CONFIG). */
export function loadConfigOrExit(serviceName: string): AppConfig {
  try {
    return loadConfig(serviceName);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${serviceName}: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
