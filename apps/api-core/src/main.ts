import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { API_CORE_QUEUE_GROUP, IMPORTS_QUEUE, ImportJob } from '@dc/contracts';
import { bullPrefix, loadConfigOrExit } from '@dc/config';
import { Database, ReadRouter, RedisWritePositions } from '@dc/database';
import { createLogger, currentDeadline, HealthServer, installRuntimePatches, logRuntimePatches, metricsAccess, metricsSourceOf, NestPinoLogger, onShutdownSignal, warnOfMissingNodeArgs } from '@dc/observability';
import { createStorage } from '@dc/storage';
import { createRedis, NatsBus, NatsRpcServer, PayloadStore } from '@dc/transport';
import { Queue } from 'bullmq';
import { AppModule } from './app.module';
import { HANDLER_CLASSES } from './features';
import { CoreMetrics } from './metrics/core-metrics';
import { PostgresGate } from './postgres-gate';
import { RpcDispatcher } from './rpc/rpc-dispatcher';
import { API_CORE_RUNTIME_PATCHES } from './runtime-patches';
import { LegacyTombstoneRekeyer } from './debtors/legacy-tombstone-rekeyer';
import { WebhookSecretResealer } from './webhooks/webhook-secret-resealer';

/** api-core: the domain. Serves NATS requests in the "api-core" queue group; HTTP only for health and metrics. */
async function main(): Promise<void> {
  const config = loadConfigOrExit('api-core');
  const patches = installRuntimePatches(API_CORE_RUNTIME_PATCHES, config.runtimePatchesOff);
  const logger = createLogger(config.serviceName, config.logLevel, { format: config.logFormat, bufferBytes: config.logBufferBytes });
  logRuntimePatches(logger, patches);
  warnOfMissingNodeArgs(logger, 'api-core', config.runtimePatchesOff);
  const { url, poolSize, ...timeouts } = config.database;
  const database = new Database(url, poolSize, { ...timeouts, deadline: currentDeadline });
  // Only for claim-checked request bodies (PayloadStore, docs/adr/0017); not needed to be ready.
  const redis = createRedis(config.redis, { lazyConnect: true, maxRetriesPerRequest: 2, commandTimeout: config.redis.commandTimeoutMs });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  const payloads = new PayloadStore(redis, config.redis.keyPrefix);
  // The import queue's producer (enqueue adds one job per import; apps/importer works them). Its own
  // connection, every command bounded; connected at once (BullMQ waits for a first "ready"), not
  // needed to be ready: without it enqueue answers 503. The prefix is the importer's.
  const queueConnection = createRedis(config.redis, { maxRetriesPerRequest: 2, commandTimeout: config.redis.commandTimeoutMs });
  queueConnection.on('error', (err) => logger.warn({ err: err.message }, 'redis error (import queue)'));
  const importQueue = new Queue<ImportJob>(IMPORTS_QUEUE, { connection: queueConnection, prefix: bullPrefix(config.redis) });
  importQueue.on('error', (err) => logger.warn({ err: err.message }, 'import queue error'));
  const storage = createStorage(config);
  // Both connections use api-core's NATS user (docs/adr/0026): it may publish only auth.invalidate and its answers.
  const bus = await NatsBus.connect({ ...config.nats, name: 'api-core-publisher', service: 'api-core', payloads });
  const metrics = new CoreMetrics();
  // Public reads on the replicas with read-your-writes (docs/adr/0050): each API key's last write
  // position in Redis, shared by every replica of api-core and the importer.
  const replicas = config.database.replicas;
  const writePositions = RedisWritePositions.forReplicas(redis, config.redis.keyPrefix, replicas);
  const reads = ReadRouter.open(database, replicas, poolSize, { ...timeouts, deadline: currentDeadline }, writePositions, metrics);
  await reads.start();
  if (replicas.urls.length) logger.info({ replicas: reads.describe() }, 'read replicas');
  const server = new NatsRpcServer({
    ...config.nats,
    service: 'api-core',
    queue: API_CORE_QUEUE_GROUP,
    name: 'api-core',
    drainTimeoutMs: config.shutdownGraceMs,
    maxConcurrency: config.apiCore.maxConcurrency,
    payloads,
    log: logger,
    onShed: (pattern) => metrics.shed.inc({ pattern }),
  });
  metrics.readInFlightFrom(() => server.requestsInFlight);
  const gate = new PostgresGate(() => database.ping(), server, logger, config.apiCore.postgresProbeIntervalMs, config.database.connectTimeoutMs + 1_000);
  await gate.check(); // unreachable now: do not join the queue group at all
  const app = await NestFactory.createMicroservice(AppModule.register({ config, logger, database, reads, bus, storage, importQueue, metrics }), {
    strategy: server,
    logger: new NestPinoLogger(logger),
  });
  // Each request runs straight on its handler (RpcDispatcher): Nest builds them, the server calls them.
  server.dispatchWith(new RpcDispatcher(logger, metrics).register(HANDLER_CLASSES, (cls) => app.get(cls)).dispatcher());
  const health = new HealthServer(
    {
      postgres: () => database.ping(),
      nats: async () => assertConnected(bus),
      queueGroup: async () => {
        if (!server.inQueueGroup) throw new Error('left: postgres unreachable');
      },
    },
    { metrics: metricsSourceOf(metrics.registry), metricsAccess: metricsAccess(config) },
  );
  const healthPort = await health.listen(config.health.port);
  await app.listen();
  gate.start();
  logger.info({ healthPort, subjectPrefix: config.nats.subjectPrefix }, 'api-core ready');
  // In the background: a failure is logged, and the next start tries again.
  void app.get(WebhookSecretResealer).resealAll().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'webhook secrets not resealed; the next start tries again'));
  void app.get(LegacyTombstoneRekeyer).rekeyAll().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'legacy erasure tombstones not rekeyed; the next start tries again'));

  onShutdownSignal(logger, config.shutdownGraceMs, async () => {
    health.startDraining();
    gate.stop();
    await app.close(); // stops taking requests, waits for those taken to be answered, closes NATS
    await bus.drain();
    await reads.stop();
    await database.close();
    redis.disconnect();
    await importQueue.close();
    queueConnection.disconnect();
    await health.close();
  });
}

async function assertConnected(bus: NatsBus): Promise<void> {
  if (!bus.isConnected()) throw new Error('not connected');
}

void main().catch((err: unknown) => {
  process.stderr.write(`api-core failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
