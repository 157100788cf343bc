import 'reflect-metadata';
import { Database } from '@dc/database';
import { runBackgroundService } from '@dc/observability';
import IORedis from 'ioredis';

/**
 * webhook-dispatcher: the outbox relay and the BullMQ delivery worker (queue "webhook-deliveries").
 * This release boots, connects to Postgres and Redis, reports health and shuts down gracefully;
 * relaying and delivery arrive with the webhooks issue (ROADMAP.md).
 */
runBackgroundService('webhook-dispatcher', async (config) => {
  const { url, poolSize, ...timeouts } = config.database;
  const database = new Database(url, poolSize, timeouts);
  // BullMQ workers need maxRetriesPerRequest: null; the same connection options are used here.
  // commandTimeout bounds this (non-blocking) connection; a BullMQ worker's blocking connection will
  // need its own, longer than its blocking wait (docs/adr/0014).
  const redis = new IORedis(config.redis.url, {
    maxRetriesPerRequest: null,
    lazyConnect: true,
    connectTimeout: config.redis.connectTimeoutMs,
    commandTimeout: config.redis.commandTimeoutMs,
  });
  await redis.connect();
  return {
    checks: { postgres: () => database.ping(), redis: async () => void (await redis.ping()) },
    stop: async () => {
      await redis.quit();
      await database.close();
    },
  };
});
