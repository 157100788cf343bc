import 'reflect-metadata';
import { Database } from '@dc/database';
import { runBackgroundService } from '@dc/observability';
import IORedis from 'ioredis';

/**
 * importer: the BullMQ worker for CSV portfolio loads (queue "imports"). This release boots,
 * connects to Postgres and Redis, reports health and shuts down gracefully; the import
 * processor arrives with the portfolio-load issue (ROADMAP.md).
 */
runBackgroundService('importer', async (config) => {
  const database = new Database(config.database.url, config.database.poolSize);
  // BullMQ workers need maxRetriesPerRequest: null; the same connection options are used here.
  const redis = new IORedis(config.redis.url, { maxRetriesPerRequest: null, lazyConnect: true });
  await redis.connect();
  return {
    checks: { postgres: () => database.ping(), redis: async () => void (await redis.ping()) },
    stop: async () => {
      await redis.quit();
      await database.close();
    },
  };
});
