import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Database } from '@dc/database';
import { NestPinoLogger, runBackgroundService } from '@dc/observability';
import { SecretBox, WebhookHttpClient } from '@dc/webhooks';
import { connectRedis, createRedis } from '@dc/transport';
import { Dispatcher } from './dispatcher';
import { DispatcherModule } from './dispatcher.module';
import { DispatcherMetrics } from './metrics/dispatcher-metrics';
import { WEBHOOK_DISPATCHER_RUNTIME_PATCHES } from './runtime-patches';

/**
 * webhook-dispatcher: the outbox relay and the BullMQ delivery worker (queue "webhook-deliveries"),
 * docs/adr/0020. Health, readiness (postgres, redis) and Prometheus metrics on HEALTH_PORT; logs
 * `webhook-dispatcher ready` once taking work; on SIGTERM stops relaying, lets the attempts in
 * flight finish and record their outcomes, then closes its connections.
 */
runBackgroundService('webhook-dispatcher', WEBHOOK_DISPATCHER_RUNTIME_PATCHES, async (config, logger) => {
  const webhooks = config.webhooks;
  if (webhooks.allowPrivateTargets) {
    logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may reach http:// and private addresses — development only');
  }
  const { url, poolSize, ...timeouts } = config.database;
  const database = new Database(url, poolSize, timeouts);
  // Connects and readies the query engine while the rest starts (the relay's first pass needs both).
  const warm = database.ping();
  // The readiness probe's connection: every command bounded (docs/adr/0014).
  const redis = createRedis(config.redis, { maxRetriesPerRequest: null, lazyConnect: true, commandTimeout: config.redis.commandTimeoutMs });
  // BullMQ's connection: maxRetriesPerRequest null and no commandTimeout, because the worker
  // duplicates it for its blocking connection, whose waits are longer than any command timeout.
  const queueConnection = createRedis(config.redis, { maxRetriesPerRequest: null, lazyConnect: true });
  for (const connection of [redis, queueConnection]) connection.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  // Ready across reconnection attempts: one connect timeout on a busy machine is not fatal.
  await Promise.all([connectRedis(redis), connectRedis(queueConnection), warm]);

  const http = new WebhookHttpClient({
    timeoutMs: webhooks.attemptTimeoutMs,
    allowPrivateTargets: webhooks.allowPrivateTargets,
    // Several webhooks may share an origin; the per-webhook cap (a tenth of the concurrency) bounds each.
    connectionsPerOrigin: webhooks.concurrency,
  });
  const secretBox = new SecretBox(webhooks.secretKey, webhooks.previousSecretKeys);
  const metrics = new DispatcherMetrics();
  const app = await NestFactory.createApplicationContext(
    DispatcherModule.register({ config, logger, database, queueConnection, http, secretBox, metrics }),
    { logger: new NestPinoLogger(logger) },
  );
  const dispatcher = app.get(Dispatcher);
  dispatcher.start();

  return {
    checks: { postgres: () => database.ping(), redis: async () => void (await redis.ping()) },
    metrics: () => metrics.exposition(),
    stop: async () => {
      await dispatcher.stop(); // relay and pruner stopped, attempts in flight finished and recorded
      await app.close(); // closes the queue
      await http.close();
      await Promise.all([queueConnection.quit(), redis.quit()]);
      await database.close();
    },
  };
});
