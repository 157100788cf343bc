import 'reflect-metadata';
import { getQueueToken } from '@nestjs/bullmq';
import { NestFactory } from '@nestjs/core';
import { IMPORTS_QUEUE } from '@dc/contracts';
import { Database, Prisma, RedisWritePositions } from '@dc/database';
import { NestPinoLogger, registerQueueDepth, runBackgroundService } from '@dc/observability';
import type { Queue } from 'bullmq';
import { createStorage } from '@dc/storage';
import { connectRedis, createRedis } from '@dc/transport';
import { Importer } from './importer';
import { ImporterModule } from './importer.module';
import { ImporterMetrics } from './metrics/importer-metrics';
import { IMPORTER_RUNTIME_PATCHES } from './runtime-patches';

/**
 * importer: the BullMQ worker for CSV portfolio loads (queue "imports"), docs/adr/0022. Health,
 * readiness (postgres, redis, storage) and Prometheus metrics on HEALTH_PORT; logs `importer ready` once taking work; on
 * SIGTERM stops taking jobs, lets each import in progress commit its current chunk and hands its
 * job back to the queue (another importer, or this one restarted, resumes it), then closes its
 * connections.
 */
runBackgroundService('importer', IMPORTER_RUNTIME_PATCHES, async (config, logger) => {
  const { url, poolSize, ...timeouts } = config.database;
  const database = new Database(url, poolSize, timeouts);
  // Every query of the importer goes through the pool (sessions, `prepared`): Prisma's query engine,
  // ~50 MB of RSS, is never loaded.
  const ping = () => database.prepared(Prisma.sql`SELECT 1`).then(() => undefined);
  const warm = ping();
  // The readiness probe's connection: every command bounded (docs/adr/0014).
  const redis = createRedis(config.redis, { maxRetriesPerRequest: null, lazyConnect: true, commandTimeout: config.redis.commandTimeoutMs });
  // BullMQ's connection: maxRetriesPerRequest null and no commandTimeout, because the worker
  // duplicates it for its blocking connection, whose waits are longer than any command timeout.
  const queueConnection = createRedis(config.redis, { maxRetriesPerRequest: null, lazyConnect: true });
  for (const connection of [redis, queueConnection]) connection.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  // Ready across reconnection attempts: one connect timeout on a busy machine is not fatal.
  await Promise.all([connectRedis(redis), connectRedis(queueConnection), warm]);
  const storage = createStorage(config);

  const metrics = new ImporterMetrics();
  // With read replicas, a completed import is a write of the key that enqueued it (docs/adr/0050).
  const replicas = config.database.replicas;
  const writePositions = RedisWritePositions.forReplicas(redis, config.redis.keyPrefix, replicas);
  const app = await NestFactory.createApplicationContext(ImporterModule.register({ config, logger, database, queueConnection, storage, metrics, writePositions }), {
    logger: new NestPinoLogger(logger),
  });
  const importer = app.get(Importer);
  registerQueueDepth(metrics.registry, [app.get<Queue>(getQueueToken(IMPORTS_QUEUE))]);
  await importer.start();

  return {
    checks: { postgres: ping, redis: async () => void (await redis.ping()), storage: () => storage.check() },
    metrics: metrics.source,
    stop: async () => {
      await importer.stop(); // no new job; runs in progress committed their chunk and handed their job back
      await app.close(); // closes the queue
      await Promise.all([queueConnection.quit(), redis.quit()]);
      await database.close();
    },
  };
});
