import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, longestServerRunMs, RUNTIME_PATCH_NAMES } from './config';

/** A token as `openssl rand -base64 24` gives (production accepts it). */
const STRONG_TOKEN = 'Zq81Lw0pX5vN3rT7yB2cK9mJ4hF6dS0a';
/** 32 distinct bytes in base64: a key production accepts (seeds give different keys). */
/** Production also requires the Redis and Postgres passwords (connections.spec.ts). */
const CONNECTION_SECRETS = {
  REDIS_PASSWORD: 'Rk4vT9pL2xQ7mW1zN8bC5hJ3dG6sA0yE',
  // The gateway's Idempotency-Key records in a Redis of their own (required in production).
  IDEMPOTENCY_REDIS_URL: 'redis://redis-idempotency:6379',
  DATABASE_PASSWORD: 'pg-app-password',
  // NATS user and request signing (docs/adr/0026): gateway and api-core need them in production.
  NATS_USER: 'gateway',
  NATS_PASSWORD: 'nW4qLz8Tr2Xk9PbV6mHs1Jc7Fd3Gy5Ra',
  INTERNAL_SIGNING_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 53 + 7) & 255)).toString('base64'),
};
const randomKey = (seed: number) => Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + seed) & 255)).toString('base64');

describe('loadConfig', () => {
  it('gives development defaults for an empty environment', () => {
    const config = loadConfig('gateway', {});
    expect(config.env).toBe('development');
    expect(config.gateway.port).toBe(3000);
    expect(config.gateway.operatorPort).toBe(3001);
    expect(config.rateLimit.unitsPerMinute).toBe(300);
    expect(config.gateway.authCacheTtlMs).toBe(60_000);
  });

  it('lists every problem at once', () => {
    expect.assertions(3);
    try {
      loadConfig('gateway', { PORT: 'abc', DATABASE_URL: 'mysql://x', NODE_ENV: 'staging' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        'NODE_ENV must be one of development, test, production (got "staging")',
        'PORT must be an integer from 0 to 65535 (got "abc")',
        'DATABASE_URL must use postgresql: or postgres: (got "mysql:")',
      ]);
      expect((err as Error).message).toContain('Invalid configuration');
    }
  });

  it('reads the edge settings: listener timeouts, proxy trust, failed-authentication limit', () => {
    const defaults = loadConfig('gateway', {}).gateway;
    expect(defaults.http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000, idleTimeoutMs: 120_000 });
    expect(defaults.trustProxy).toBe(false);
    // A client's X-Request-Id is taken only when configured (an edge that sets its own).
    expect(defaults.trustRequestId).toBe(false);
    expect(loadConfig('gateway', { TRUST_REQUEST_ID: 'true' }).gateway.trustRequestId).toBe(true);
    expect(defaults.authFailuresPerMinute).toBe(60);
    expect(loadConfig('gateway', { TRUST_PROXY: '1' }).gateway.trustProxy).toBe(1);
    expect(loadConfig('gateway', { TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).gateway.trustProxy).toBe('10.0.0.0/8,127.0.0.1');
    expect(loadConfig('gateway', { TRUST_PROXY: 'true' }).gateway.trustProxy).toBe(true);
  });

  it('reads RUNTIME_PATCHES_OFF: none by default, all, or named ones; an unknown name is refused with the list', () => {
    expect(loadConfig('gateway', {}).runtimePatchesOff).toEqual(new Set());
    expect(loadConfig('gateway', { RUNTIME_PATCHES_OFF: 'all' }).runtimePatchesOff).toEqual(new Set(RUNTIME_PATCH_NAMES));
    expect(loadConfig('gateway', { RUNTIME_PATCHES_OFF: ' pg-binary-columns, nats-write-coalescing ' }).runtimePatchesOff).toEqual(
      new Set(['pg-binary-columns', 'nats-write-coalescing']),
    );
    expect(() => loadConfig('gateway', { RUNTIME_PATCHES_OFF: 'pg-binary-column' })).toThrow(
      `RUNTIME_PATCHES_OFF names unknown patches (pg-binary-column): use "all" or a comma-separated list of ${RUNTIME_PATCH_NAMES.join(', ')}`,
    );
  });

  it('refuses listener timeouts that contradict each other', () => {
    expect(() => loadConfig('gateway', { HTTP_HEADERS_TIMEOUT_MS: '40000', HTTP_REQUEST_TIMEOUT_MS: '30000' })).toThrow(
      'HTTP_HEADERS_TIMEOUT_MS (40000) must not exceed HTTP_REQUEST_TIMEOUT_MS (30000)',
    );
    expect(() => loadConfig('gateway', { HTTP_IDLE_TIMEOUT_MS: '5000' })).toThrow(
      'HTTP_IDLE_TIMEOUT_MS (5000) must be longer than NATS_REQUEST_TIMEOUT_MS (10000)',
    );
  });

  it('refuses production without a strong operator token', () => {
    expect(() => loadConfig('gateway', { NODE_ENV: 'production' })).toThrow(
      'OPERATOR_TOKEN is required in production (at least 32 random characters',
    );
    const production = { NODE_ENV: 'production', ...CONNECTION_SECRETS, STORAGE_SIGNING_KEY: randomKey(2) };
    expect(loadConfig('gateway', { ...production, OPERATOR_TOKEN: STRONG_TOKEN }).gateway.operatorToken).toBe(STRONG_TOKEN);
    const refusal = (token: string) => () => loadConfig('gateway', { ...production, OPERATOR_TOKEN: token });
    expect(refusal('short-but-random-Zq81Lw0p')).toThrow('OPERATOR_TOKEN must be at least 32 characters in production');
    // The placeholders this repository shipped (compose fallback, Kubernetes template) and look-alikes.
    for (const placeholder of ['change-me-to-a-long-random-operator-token-000', 'REPLACE_ME_with_a_random_token_of_at_least_32_chars', 'my-placeholder-operator-token-value-1234']) {
      expect(refusal(placeholder)).toThrow('OPERATOR_TOKEN is a placeholder value');
    }
    for (const predictable of ['x'.repeat(32), 'abababababababababababababababab', '00000000000000000000000000000001']) {
      expect(refusal(predictable)).toThrow('OPERATOR_TOKEN is too predictable');
    }
    // Development keeps its documented default.
    expect(loadConfig('gateway', {}).gateway.operatorToken).toBe('dev-operator-token');
  });

  it('in production, only the gateway needs the operator token; another app without it never falls back to the development one', () => {
    const production = { NODE_ENV: 'production', ...CONNECTION_SECRETS, WEBHOOK_SECRET_KEY: randomKey(1), METRICS_TOKEN: STRONG_TOKEN };
    const dispatcher = loadConfig('webhook-dispatcher', production);
    expect(dispatcher.gateway.operatorToken).toBe('');
    expect(dispatcher.metricsToken).toBe(STRONG_TOKEN);
    // Given anyway, it must still be strong.
    expect(() => loadConfig('webhook-dispatcher', { ...production, OPERATOR_TOKEN: 'x'.repeat(40) })).toThrow('OPERATOR_TOKEN is too predictable');
  });

  it('reads any variable from the file named by <NAME>_FILE (mounted secrets), and says when it cannot', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'config-spec-'));
    writeFileSync(path.join(dir, 'token'), `${STRONG_TOKEN}\n`);
    writeFileSync(path.join(dir, 'empty'), '\n');
    const production = { NODE_ENV: 'production', ...CONNECTION_SECRETS, STORAGE_SIGNING_KEY: randomKey(2) };
    expect(loadConfig('gateway', { ...production, OPERATOR_TOKEN: 'ignored', OPERATOR_TOKEN_FILE: path.join(dir, 'token') }).gateway.operatorToken).toBe(STRONG_TOKEN);
    expect(() => loadConfig('gateway', { ...production, OPERATOR_TOKEN_FILE: path.join(dir, 'missing') })).toThrow(
      `OPERATOR_TOKEN_FILE names a file that cannot be read (${path.join(dir, 'missing')}: ENOENT)`,
    );
    expect(() => loadConfig('gateway', { ...production, OPERATOR_TOKEN_FILE: path.join(dir, 'empty') })).toThrow('OPERATOR_TOKEN_FILE names an empty file');
  });

  it('refuses, in production, keys that are not random and a weak METRICS_TOKEN', () => {
    const production = { NODE_ENV: 'production', ...CONNECTION_SECRETS, OPERATOR_TOKEN: STRONG_TOKEN };
    expect(() => loadConfig('gateway', { ...production, STORAGE_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64') })).toThrow(
      'STORAGE_SIGNING_KEY is not random (too few distinct bytes)',
    );
    expect(() => loadConfig('gateway', { ...production, STORAGE_SIGNING_KEY: randomKey(2), METRICS_TOKEN: 'metrics' })).toThrow(
      'METRICS_TOKEN must be at least 32 characters in production',
    );
    expect(loadConfig('gateway', { ...production, STORAGE_SIGNING_KEY: randomKey(2), METRICS_TOKEN: STRONG_TOKEN.toUpperCase() }).metricsToken).toBe(STRONG_TOKEN.toUpperCase());
    // Outside production a fixed test key is fine.
    expect(loadConfig('gateway', { STORAGE_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64') }).storage.local.signingKey).toEqual(Buffer.alloc(32, 2));
  });

  it('reads the webhook settings with the spec defaults: 10 s attempts, 5 of them, about 90 s apart', () => {
    const webhooks = loadConfig('webhook-dispatcher', {}).webhooks;
    expect(webhooks).toMatchObject({
      allowPrivateTargets: false, attemptTimeoutMs: 10_000, maxAttempts: 5, retryDelayMs: 90_000, retryJitterMs: 10_000,
      previousSecretKeys: [], concurrency: 200, organizationSharePercent: 50,
    });
    expect(webhooks.secretKey).toHaveLength(32);
    const key = Buffer.alloc(32, 7).toString('base64');
    const shortened = loadConfig('webhook-dispatcher', { WEBHOOK_SECRET_KEY: key, WEBHOOK_RETRY_DELAY_MS: '200', WEBHOOK_RETRY_JITTER_MS: '0' });
    expect(shortened.webhooks).toMatchObject({ retryDelayMs: 200, retryJitterMs: 0, secretKey: Buffer.alloc(32, 7) });
    expect(loadConfig('webhook-dispatcher', { WEBHOOK_ORGANIZATION_SHARE_PERCENT: '100' }).webhooks.organizationSharePercent).toBe(100);
    expect(() => loadConfig('webhook-dispatcher', { WEBHOOK_ORGANIZATION_SHARE_PERCENT: '0' })).toThrow(
      'WEBHOOK_ORGANIZATION_SHARE_PERCENT must be an integer from 1 to 100 (got "0")',
    );
    expect(() => loadConfig('api-core', { WEBHOOK_SECRET_KEY: 'c2hvcnQ=' })).toThrow(
      'WEBHOOK_SECRET_KEY must be 32 bytes in base64, for example the output of "openssl rand -base64 32"',
    );
  });

  it('disables failing webhooks after WEBHOOK_DISABLE_AFTER_DAYS (5), or WEBHOOK_DISABLE_AFTER_SECONDS when set', () => {
    expect(loadConfig('webhook-dispatcher', {}).webhooks.disableAfterSeconds).toBe(5 * 86_400);
    expect(loadConfig('webhook-dispatcher', { WEBHOOK_DISABLE_AFTER_DAYS: '2' }).webhooks.disableAfterSeconds).toBe(2 * 86_400);
    expect(loadConfig('webhook-dispatcher', { WEBHOOK_DISABLE_AFTER_DAYS: '2', WEBHOOK_DISABLE_AFTER_SECONDS: '3' }).webhooks.disableAfterSeconds).toBe(3);
    expect(() => loadConfig('webhook-dispatcher', { WEBHOOK_DISABLE_AFTER_DAYS: '0' })).toThrow(
      'WEBHOOK_DISABLE_AFTER_DAYS must be an integer from 1 to 365 (got "0")',
    );
    expect(() => loadConfig('webhook-dispatcher', { WEBHOOK_DISABLE_AFTER_SECONDS: '1.5' })).toThrow(
      'WEBHOOK_DISABLE_AFTER_SECONDS must be an integer from 1 to 31536000 (got "1.5")',
    );
  });

  it('refuses, in production, a missing or development webhook key and the private-targets flag', () => {
    const production = { NODE_ENV: 'production', ...CONNECTION_SECRETS, OPERATOR_TOKEN: STRONG_TOKEN, STORAGE_SIGNING_KEY: randomKey(2) };
    expect(() => loadConfig('webhook-dispatcher', production)).toThrow('WEBHOOK_SECRET_KEY is required in production');
    expect(() => loadConfig('api-core', { ...production, WEBHOOK_SECRET_KEY: 'ZGV2LXdlYmhvb2stc2VjcmV0LWtleS0zMi1ieXRlcyE=' })).toThrow(
      'WEBHOOK_SECRET_KEY is required in production',
    );
    const key = randomKey(1);
    expect(() => loadConfig('webhook-dispatcher', { ...production, WEBHOOK_SECRET_KEY: key, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS must not be set in production',
    );
    expect(loadConfig('webhook-dispatcher', { ...production, WEBHOOK_SECRET_KEY: key }).webhooks.secretKey).toEqual(Buffer.from(key, 'base64'));
    // Services that neither register nor send webhooks need no key.
    expect(loadConfig('gateway', production).env).toBe('production');
  });

  it('reads the storage settings: local disk by default; S3 needs a bucket; production needs a real signing key', () => {
    const local = loadConfig('api-core', {}).storage;
    expect(local).toMatchObject({ driver: 'local', local: { dir: './var/uploads' } });
    expect(local.local.signingKey).toHaveLength(32);
    expect(() => loadConfig('importer', { STORAGE_DRIVER: 's3' })).toThrow('S3_BUCKET is required with STORAGE_DRIVER=s3');
    expect(() => loadConfig('importer', { STORAGE_DRIVER: 'ftp' })).toThrow('STORAGE_DRIVER must be one of local, s3 (got "ftp")');
    const s3 = loadConfig('importer', { STORAGE_DRIVER: 's3', S3_BUCKET: 'uploads', S3_ENDPOINT: 'http://minio:9000' }).storage.s3;
    expect(s3).toEqual({ endpoint: 'http://minio:9000', publicEndpoint: '', region: 'us-east-1', bucket: 'uploads', accessKeyId: '', secretAccessKey: '', forcePathStyle: true });
    const production = { NODE_ENV: 'production', ...CONNECTION_SECRETS, OPERATOR_TOKEN: STRONG_TOKEN, WEBHOOK_SECRET_KEY: randomKey(1), ERASURE_HMAC_KEY: randomKey(3) };
    expect(() => loadConfig('gateway', production)).toThrow('STORAGE_SIGNING_KEY is required in production with STORAGE_DRIVER=local');
    expect(() => loadConfig('api-core', { ...production, STORAGE_SIGNING_KEY: 'ZGV2LXVwbG9hZC1zaWduaW5nLWtleS0zMi1ieXRlcyE=' })).toThrow(
      'STORAGE_SIGNING_KEY is required in production',
    );
    expect(loadConfig('importer', { ...production, STORAGE_DRIVER: 's3', S3_BUCKET: 'b' }).storage.driver).toBe('s3');
    // Production S3 credentials: a bucket user with a strong secret, never a server's shipped administrator or a weak secret.
    const onS3 = { ...production, STORAGE_DRIVER: 's3', S3_BUCKET: 'b' };
    expect(() => loadConfig('importer', { ...onS3, S3_ACCESS_KEY_ID: 'minio-dev-user', S3_SECRET_ACCESS_KEY: 'minio-dev-password-change-me-0123456789' })).toThrow(
      "- S3_ACCESS_KEY_ID is a storage server's default administrator in production: give the apps a user limited to the uploads bucket\n" +
        '  - S3_SECRET_ACCESS_KEY is a placeholder value: generate one with "openssl rand -base64 32" in production',
    );
    expect(() => loadConfig('api-core', { ...onS3, STORAGE_SIGNING_KEY: randomKey(2), S3_ACCESS_KEY_ID: 'dc-app', S3_SECRET_ACCESS_KEY: 'short' })).toThrow(
      'S3_SECRET_ACCESS_KEY must be at least 32 characters in production',
    );
    expect(() => loadConfig('importer', { ...onS3, S3_ACCESS_KEY_ID: 'dc-app' })).toThrow('S3_SECRET_ACCESS_KEY is required with S3_ACCESS_KEY_ID in production');
    expect(loadConfig('importer', { ...onS3, S3_ACCESS_KEY_ID: 'dc-app-1f2e', S3_SECRET_ACCESS_KEY: STRONG_TOKEN }).storage.s3.accessKeyId).toBe('dc-app-1f2e');
    expect(loadConfig('webhook-dispatcher', production).env).toBe('production'); // it touches no upload
  });

  it('erasure tombstones: a development key outside production; api-core and importer refuse a missing or development key in production', () => {
    expect(loadConfig('api-core', {}).erasure.hmacKey).toHaveLength(32);
    expect(loadConfig('importer', { ERASURE_HMAC_KEY: Buffer.alloc(32, 4).toString('base64') }).erasure.hmacKey).toEqual(Buffer.alloc(32, 4));
    expect(() => loadConfig('api-core', { ERASURE_HMAC_KEY: 'c2hvcnQ=' })).toThrow('ERASURE_HMAC_KEY must be 32 bytes in base64');
    const production = { NODE_ENV: 'production', ...CONNECTION_SECRETS, OPERATOR_TOKEN: STRONG_TOKEN, WEBHOOK_SECRET_KEY: randomKey(1), STORAGE_SIGNING_KEY: randomKey(2) };
    const required = 'ERASURE_HMAC_KEY is required in production';
    expect(() => loadConfig('api-core', production)).toThrow(required);
    expect(() => loadConfig('importer', production)).toThrow(required);
    const devKey = loadConfig('api-core', {}).erasure.hmacKey.toString('base64');
    expect(() => loadConfig('importer', { ...production, ERASURE_HMAC_KEY: devKey })).toThrow(required);
    expect(() => loadConfig('api-core', { ...production, ERASURE_HMAC_KEY: Buffer.alloc(32, 4).toString('base64') })).toThrow('ERASURE_HMAC_KEY is not random');
    const key = randomKey(3);
    expect(loadConfig('api-core', { ...production, ERASURE_HMAC_KEY: key }).erasure.hmacKey).toEqual(Buffer.from(key, 'base64'));
    // Services that neither write nor check tombstones need no key.
    expect(loadConfig('gateway', production).env).toBe('production');
    expect(loadConfig('webhook-dispatcher', production).env).toBe('production');
  });

  it('reads the import settings with their defaults', () => {
    expect(loadConfig('importer', {}).imports).toEqual({
      uploadTtlSeconds: 3_600, maxFileBytes: 1024 ** 3, chunkRows: 5_000, concurrency: 1, statementTimeoutMs: 600_000, analyzeAfterRows: 10_000,
      maxRows: 10_000_000, maxAttempts: 5, maxRunningPerOrganization: 1,
    });
    expect(() => loadConfig('importer', { IMPORT_CHUNK_ROWS: '0' })).toThrow('IMPORT_CHUNK_ROWS must be an integer from 1 to 100000 (got "0")');
  });

  it('refuses an Idempotency-Key lease that a gateway timeout could outlive', () => {
    expect(() => loadConfig('gateway', { NATS_REQUEST_TIMEOUT_MS: '10000', IDEMPOTENCY_LEASE_MS: '10000' })).toThrow(
      'IDEMPOTENCY_LEASE_MS (10000) must be longer than NATS_REQUEST_TIMEOUT_MS (10000)',
    );
    const short = { NATS_REQUEST_TIMEOUT_MS: '500', DATABASE_CONNECT_TIMEOUT_MS: '200', DATABASE_STATEMENT_TIMEOUT_MS: '200' };
    expect(loadConfig('gateway', { ...short, IDEMPOTENCY_LEASE_MS: '1000' }).idempotency.leaseMs).toBe(1000);
  });

  it('refuses a lease that the longest server-side run could outlive (request timeout + connection wait + statement)', () => {
    const env = { NATS_REQUEST_TIMEOUT_MS: '10000', DATABASE_CONNECT_TIMEOUT_MS: '2000', DATABASE_STATEMENT_TIMEOUT_MS: '5000' };
    expect(() => loadConfig('gateway', { ...env, IDEMPOTENCY_LEASE_MS: '17000' })).toThrow(
      'IDEMPOTENCY_LEASE_MS (17000) must be longer than the longest server-side run, 17000 ms',
    );
    expect(loadConfig('gateway', { ...env, IDEMPOTENCY_LEASE_MS: '17001' }).idempotency.leaseMs).toBe(17001);
    expect(longestServerRunMs(loadConfig('gateway', {}))).toBe(17_000);
  });

  it('gives the database, Redis and api-core bounds their documented defaults', () => {
    const config = loadConfig('api-core', {});
    expect(config.database).toMatchObject({ statementTimeoutMs: 5000, lockTimeoutMs: 4000, idleInTransactionTimeoutMs: 10_000, connectTimeoutMs: 2000 });
    expect(config.redis).toMatchObject({ commandTimeoutMs: 1000, connectTimeoutMs: 2000 });
    expect(config.apiCore).toEqual({ maxConcurrency: 64, postgresProbeIntervalMs: 2000 });
  });

  it('refuses, in api-core, a statement timeout not shorter than the request timeout its callers wait', () => {
    const env = { NATS_REQUEST_TIMEOUT_MS: '5000', DATABASE_STATEMENT_TIMEOUT_MS: '5000' };
    expect(() => loadConfig('api-core', env)).toThrow(
      'DATABASE_STATEMENT_TIMEOUT_MS (5000) must be shorter than NATS_REQUEST_TIMEOUT_MS (5000), so that database work ends before its caller gives up',
    );
    expect(loadConfig('api-core', { ...env, DATABASE_STATEMENT_TIMEOUT_MS: '4999' }).database.statementTimeoutMs).toBe(4999);
  });
});

describe('NATS credentials, TLS and the internal signing key (docs/adr/0026)', () => {
  const production = {
    NODE_ENV: 'production',
    ...CONNECTION_SECRETS,
    OPERATOR_TOKEN: STRONG_TOKEN,
    WEBHOOK_SECRET_KEY: randomKey(1),
    STORAGE_SIGNING_KEY: randomKey(2),
    ERASURE_HMAC_KEY: randomKey(3),
  };
  const without = (...names: string[]) => Object.fromEntries(Object.entries(production).filter(([k]) => !names.includes(k)));

  it('development: no NATS user, no TLS, a development signing key', () => {
    const nats = loadConfig('gateway', {}).nats;
    expect(nats.user).toBeUndefined();
    expect(nats.password).toBeUndefined();
    expect(nats.tls).toBeUndefined();
    expect(nats.signingKeys.current).toHaveLength(32);
    expect(nats.signingKeys.previous).toEqual([]);
  });

  it('production: gateway and api-core refuse to start without a NATS user, naming the variables', () => {
    for (const service of ['gateway', 'api-core']) {
      expect(() => loadConfig(service, without('NATS_USER', 'NATS_PASSWORD'))).toThrow('NATS_USER and NATS_PASSWORD are required in production');
      expect(() => loadConfig(service, { ...production, NATS_PASSWORD: 'change-me-to-a-long-random-nats-password' })).toThrow('NATS_PASSWORD is a placeholder value');
      expect(() => loadConfig(service, without('INTERNAL_SIGNING_KEY'))).toThrow('INTERNAL_SIGNING_KEY is required in production');
      expect(() => loadConfig(service, { ...production, INTERNAL_SIGNING_KEY: 'ZGV2LWludGVybmFsLXNpZ25pbmcta2V5LTMyLWJ5dGU=' })).toThrow('INTERNAL_SIGNING_KEY is required in production');
    }
    // The workers do not use NATS.
    expect(loadConfig('webhook-dispatcher', without('NATS_USER', 'NATS_PASSWORD', 'INTERNAL_SIGNING_KEY')).nats.user).toBeUndefined();
    const nats = loadConfig('api-core', production).nats;
    expect(nats).toMatchObject({ user: 'gateway', password: CONNECTION_SECRETS.NATS_PASSWORD });
    expect(nats.signingKeys.current).toEqual(Buffer.from(CONNECTION_SECRETS.INTERNAL_SIGNING_KEY, 'base64'));
  });

  it('user and password go together; the password never appears in the message', () => {
    expect(() => loadConfig('gateway', { NATS_USER: 'gateway' })).toThrow('NATS_USER and NATS_PASSWORD must be set together');
    try {
      loadConfig('gateway', { ...production, NATS_PASSWORD: 'short-secret-9' });
      throw new Error('accepted');
    } catch (err) {
      expect((err as Error).message).toContain('NATS_PASSWORD must be at least 32 characters in production');
      expect((err as Error).message).not.toContain('short-secret-9');
    }
  });

  it('previous signing keys are accepted for rotation, each checked', () => {
    const nats = loadConfig('api-core', { INTERNAL_SIGNING_KEYS_PREVIOUS: `${randomKey(4)}, ${randomKey(5)}` }).nats;
    expect(nats.signingKeys.previous).toEqual([Buffer.from(randomKey(4), 'base64'), Buffer.from(randomKey(5), 'base64')]);
    expect(() => loadConfig('api-core', { INTERNAL_SIGNING_KEYS_PREVIOUS: 'short' })).toThrow('INTERNAL_SIGNING_KEYS_PREVIOUS[0] must be 32 bytes in base64');
  });

  it('TLS: a tls:// URL or any NATS_TLS_*_FILE requires TLS; the PEM files are read at start-up', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nats-tls-'));
    writeFileSync(path.join(dir, 'ca.pem'), 'CA PEM');
    writeFileSync(path.join(dir, 'cert.pem'), 'CERT PEM');
    writeFileSync(path.join(dir, 'key.pem'), 'KEY PEM');
    expect(loadConfig('gateway', { NATS_URL: 'tls://nats:4222' }).nats.tls).toEqual({});
    expect(loadConfig('gateway', { NATS_TLS_CA_FILE: path.join(dir, 'ca.pem') }).nats.tls).toEqual({ ca: 'CA PEM' });
    expect(
      loadConfig('gateway', { NATS_TLS_CA_FILE: path.join(dir, 'ca.pem'), NATS_TLS_CERT_FILE: path.join(dir, 'cert.pem'), NATS_TLS_KEY_FILE: path.join(dir, 'key.pem') }).nats.tls,
    ).toEqual({ ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' });
    expect(() => loadConfig('gateway', { NATS_TLS_CERT_FILE: path.join(dir, 'cert.pem') })).toThrow('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE must be set together');
    expect(() => loadConfig('gateway', { NATS_TLS_CA_FILE: path.join(dir, 'missing.pem') })).toThrow('NATS_TLS_CA_FILE names a file that cannot be read');
  });
});
