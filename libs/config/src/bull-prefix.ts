import type { RedisConfig } from './config';

/**
 * The BullMQ key prefix of the deployment's queues: every process that creates a queue (api-core's
 * producer, the importer, the webhook dispatcher, the gateway's queue board) takes it from here, so
 * they all meet on the same keys (`{<prefix>}:<queue>:…`, which docker/redis/acl.js grants).
 *
 * REDIS_KEY_PREFIX inside a Redis Cluster hash tag (`{dc}`): one BullMQ script touches several keys
 * of a queue (`{dc}:imports:wait`, `{dc}:imports:active`, …), and Redis Cluster runs a script only
 * when all its keys hash to one slot; the tag makes them do so (docs/adr/0033). On a single Redis
 * the braces are just characters of the key.
 */
export function bullPrefix(redis: Pick<RedisConfig, 'keyPrefix'>): string {
  return `{${redis.keyPrefix}}`;
}
