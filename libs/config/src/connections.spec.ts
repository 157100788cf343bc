import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from './config';

const STRONG_TOKEN = 'Zq81Lw0pX5vN3rT7yB2cK9mJ4hF6dS0a';
const REDIS_PASSWORD = 'Rk4vT9pL2xQ7mW1zN8bC5hJ3dG6sA0yE';
const production = {
  NODE_ENV: 'production',
  OPERATOR_TOKEN: STRONG_TOKEN,
  STORAGE_SIGNING_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 2) & 255)).toString('base64'),
  DATABASE_PASSWORD: 'pg-app-password',
  // Other services' production keys (not under test here).
  WEBHOOK_SECRET_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 3) & 255)).toString('base64'),
  ERASURE_HMAC_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 4) & 255)).toString('base64'),
  NATS_USER: 'gateway',
  NATS_PASSWORD: 'nW4qLz8Tr2Xk9PbV6mHs1Jc7Fd3Gy5Ra',
  INTERNAL_SIGNING_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 5) & 255)).toString('base64'),
  IDEMPOTENCY_REDIS_URL: 'redis://redis-idempotency:6379',
};

describe('Redis and Postgres credentials (docs/adr/0027)', () => {
  it('gives Redis no credentials outside production, and the idempotency records the main Redis', () => {
    const config = loadConfig('gateway', {});
    expect(config.redis).toEqual({ url: 'redis://127.0.0.1:6379', keyPrefix: 'dc', commandTimeoutMs: 1000, connectTimeoutMs: 2000, username: undefined, password: undefined, tlsCa: undefined });
    expect(config.idempotencyRedis).toEqual({ ...config.redis, separate: false });
  });

  it('refuses, in production, a Redis connection without a strong password, naming the variable', () => {
    for (const service of ['gateway', 'api-core', 'importer', 'webhook-dispatcher']) {
      expect(() => loadConfig(service, production)).toThrow(
        "REDIS_PASSWORD is required in production (the password of this service's Redis ACL user",
      );
    }
    expect(() => loadConfig('gateway', { ...production, REDIS_PASSWORD: 'redis-password-change-me-000000000000' })).toThrow('REDIS_PASSWORD is a placeholder value');
    expect(() => loadConfig('gateway', { ...production, REDIS_PASSWORD: 'short' })).toThrow('REDIS_PASSWORD must be at least 32 characters in production');
    const config = loadConfig('gateway', { ...production, REDIS_USERNAME: 'gateway', REDIS_PASSWORD });
    expect(config.redis).toMatchObject({ username: 'gateway', password: REDIS_PASSWORD });
    // The message never echoes the value.
    try {
      loadConfig('gateway', { ...production, REDIS_PASSWORD: 'short-secret-value' });
    } catch (err) {
      expect((err as Error).message).not.toContain('short-secret-value');
    }
  });

  it('takes the user and password from the URL, REDIS_PASSWORD_FILE, and a CA file for rediss://', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dc-redis-config-'));
    writeFileSync(path.join(dir, 'password'), `${REDIS_PASSWORD}\n`);
    writeFileSync(path.join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const fromUrl = loadConfig('api-core', { REDIS_URL: 'redis://api-core:p%40ss@redis:6379/0' }).redis;
    expect(fromUrl).toMatchObject({ username: 'api-core', password: 'p@ss' });
    const fromFile = loadConfig('importer', {
      REDIS_URL: 'rediss://redis.internal:6380',
      REDIS_USERNAME: 'importer',
      REDIS_PASSWORD_FILE: path.join(dir, 'password'),
      REDIS_TLS_CA_FILE: path.join(dir, 'ca.pem'),
    }).redis;
    expect(fromFile).toMatchObject({ username: 'importer', password: REDIS_PASSWORD, tlsCa: expect.stringContaining('BEGIN CERTIFICATE') });
    expect(() => loadConfig('importer', { REDIS_TLS_CA_FILE: path.join(dir, 'ca.pem') })).toThrow('REDIS_TLS_CA_FILE is set but REDIS_URL is not a rediss:// URL');
    expect(() => loadConfig('importer', { REDIS_URL: 'rediss://r:6380', REDIS_TLS_CA_FILE: path.join(dir, 'nope.pem') })).toThrow(
      'REDIS_TLS_CA_FILE names a file that cannot be read',
    );
  });

  it('gives the gateway a separate idempotency Redis whose settings default to the main ones', () => {
    const env = { REDIS_URL: 'redis://redis:6379', REDIS_USERNAME: 'gateway', REDIS_PASSWORD, IDEMPOTENCY_REDIS_URL: 'redis://redis-idempotency:6379' };
    const config = loadConfig('gateway', env);
    expect(config.idempotencyRedis).toMatchObject({ url: 'redis://redis-idempotency:6379', username: 'gateway', password: REDIS_PASSWORD, keyPrefix: 'dc', separate: true });
    expect(loadConfig('gateway', { ...env, IDEMPOTENCY_REDIS_USERNAME: 'idem', IDEMPOTENCY_REDIS_PASSWORD: 'other' }).idempotencyRedis).toMatchObject({
      username: 'idem',
      password: 'other',
    });
    expect(() => loadConfig('gateway', { ...env, IDEMPOTENCY_REDIS_URL: 'http://x' })).toThrow('IDEMPOTENCY_REDIS_URL must use redis: or rediss:');
  });

  it('refuses a production gateway whose idempotency records would share the noeviction Redis of the queues', () => {
    const shared: Record<string, string> = { ...production, REDIS_PASSWORD };
    delete shared.IDEMPOTENCY_REDIS_URL;
    expect(() => loadConfig('gateway', shared)).toThrow('IDEMPOTENCY_REDIS_URL is required in production');
    // The other apps never use it.
    expect(loadConfig('api-core', shared).idempotencyRedis.separate).toBe(false);
    expect(loadConfig('gateway', { ...shared, NODE_ENV: 'test' }).idempotencyRedis.separate).toBe(false);
    expect(loadConfig('gateway', { ...production, REDIS_PASSWORD }).idempotencyRedis).toMatchObject({ url: 'redis://redis-idempotency:6379', separate: true });
  });

  it('bounds each API key\'s idempotency records: 5,000 records and 16 MiB by default', () => {
    expect(loadConfig('gateway', {}).idempotency).toMatchObject({ maxRecordsPerKey: 5_000, maxBytesPerKey: 16 * 1024 * 1024 });
    expect(loadConfig('gateway', { IDEMPOTENCY_MAX_RECORDS_PER_KEY: '5', IDEMPOTENCY_MAX_BYTES_PER_KEY: '4096' }).idempotency).toMatchObject({ maxRecordsPerKey: 5, maxBytesPerKey: 4096 });
    expect(() => loadConfig('gateway', { IDEMPOTENCY_MAX_RECORDS_PER_KEY: '0' })).toThrow('IDEMPOTENCY_MAX_RECORDS_PER_KEY must be an integer from 1 to 1000000 (got "0")');
    expect(() => loadConfig('gateway', { IDEMPOTENCY_MAX_BYTES_PER_KEY: '100' })).toThrow('IDEMPOTENCY_MAX_BYTES_PER_KEY must be an integer from 1024 to 1073741824 (got "100")');
  });

  it('puts DATABASE_PASSWORD into the URL, requires one in production, and reads a CA for TLS', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dc-pg-config-'));
    writeFileSync(path.join(dir, 'ca.pem'), 'PEM');
    const config = loadConfig('api-core', { DATABASE_URL: 'postgresql://dc_app@db:5432/dc?sslmode=verify-full', DATABASE_PASSWORD: 'p@ss/word', DATABASE_SSL_CA_FILE: path.join(dir, 'ca.pem') });
    expect(config.database.url).toBe('postgresql://dc_app:p%40ss%2Fword@db:5432/dc?sslmode=verify-full');
    expect(config.database.ssl).toEqual({ ca: 'PEM', verifyHostname: true });
    expect(loadConfig('api-core', { DATABASE_URL: 'postgresql://dc_app@db/dc?sslmode=verify-ca', DATABASE_SSL_CA_FILE: path.join(dir, 'ca.pem') }).database.ssl).toEqual({
      ca: 'PEM',
      verifyHostname: false,
    });
    expect(loadConfig('api-core', {}).database.ssl).toBeUndefined();
    const withoutPassword: Record<string, string> = { ...production };
    delete withoutPassword.DATABASE_PASSWORD;
    expect(() => loadConfig('importer', { ...withoutPassword, REDIS_PASSWORD })).toThrow('DATABASE_PASSWORD (or a password in DATABASE_URL) is required in production');
    expect(loadConfig('importer', { ...withoutPassword, REDIS_PASSWORD, DATABASE_URL: 'postgresql://dc_app:secret@db/dc' }).database.url).toBe('postgresql://dc_app:secret@db/dc');
    expect(loadConfig('gateway', { ...withoutPassword, REDIS_PASSWORD }).env).toBe('production'); // the gateway has no database
  });
});
