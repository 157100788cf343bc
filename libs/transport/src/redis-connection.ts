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
