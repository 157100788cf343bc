import type { RedisConfig } from '@dc/config';
import IORedis, { type Redis, type RedisOptions } from 'ioredis';
import { isIP } from 'node:net';

/**
 * The one place a Redis connection's options are built (docs/adr/0027), for every connection the
 * apps open, BullMQ's included: the address and database from the URL, the service's ACL user and
 * password (REDIS_USERNAME / REDIS_PASSWORD), TLS for a rediss:// URL (with REDIS_TLS_CA_FILE's CA
 * when set) and the connect timeout. `overrides` adds what differs per use (command timeout,
 * offline queue, retries). The options are built explicitly rather than by passing the URL to
 * ioredis, whose URL values would silently win over these; no option is ever logged.
 */
export function redisOptions(server: RedisConfig, overrides: RedisOptions = {}): RedisOptions {
  const url = new URL(server.url);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  return {
    host,
    port: url.port ? Number(url.port) : 6379,
    db: Number.isInteger(db) ? db : 0,
    ...(server.username ? { username: server.username } : {}),
    ...(server.password ? { password: server.password } : {}),
    ...(url.protocol === 'rediss:' ? { tls: { ...(isIP(host) ? {} : { servername: host }), ...(server.tlsCa ? { ca: server.tlsCa } : {}) } } : {}),
    connectTimeout: server.connectTimeoutMs,
    // No CLIENT SETINFO on connect: informational only, and outside the services' ACL (docker/redis/acl.js).
    disableClientInfo: true,
    ...overrides,
  };
}

/** A connection to `server` with `redisOptions`. */
export function createRedis(server: RedisConfig, overrides: RedisOptions = {}): Redis {
  return new IORedis(redisOptions(server, overrides));
}

/** How long a service's start-up waits for Redis to be ready before it exits (and is restarted). */
export const REDIS_STARTUP_WAIT_MS = 30_000;

/**
 * Connects a `lazyConnect` connection and waits, across ioredis's reconnection attempts, until it is
 * ready, for at most `timeoutMs`. ioredis's own `connect()` rejects ("Connection is closed.") as soon
 * as its first attempt closes, although it goes on retrying: a worker awaiting it exited at start-up
 * on one connect timeout, for example while a busy machine held its event loop past
 * REDIS_CONNECT_TIMEOUT_MS. An ended connection (quit, or a retry strategy that gave up) fails at once.
 */
export async function connectRedis(connection: Redis, timeoutMs = REDIS_STARTUP_WAIT_MS): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      connection.off('ready', onReady);
      connection.off('end', onEnd);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => done();
    const onEnd = () => done(new Error('the Redis connection ended before it was ready'));
    const timer = setTimeout(() => done(new Error(`Redis not ready within ${timeoutMs} ms`)), timeoutMs);
    connection.on('ready', onReady);
    connection.on('end', onEnd);
    if (connection.status === 'ready') done();
    // Its rejection is the first closed attempt: ioredis retries, and 'ready' or 'end' decides.
    else if (connection.status === 'wait') connection.connect().catch(() => undefined);
  });
}
