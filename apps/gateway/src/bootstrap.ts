import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AUTH_INVALIDATION_SUBJECT, AuthInvalidation } from '@dc/contracts';
import { AppConfig, loadConfigOrExit } from '@dc/config';
import { createLogger, installRuntimePatches, Logger, logRuntimePatches, metricsAccess, NestPinoLogger, onShutdownSignal, warnOfMissingNodeArgs } from '@dc/observability';
import { createRedis, NatsBus, PayloadStore } from '@dc/transport';
import { createStorage } from '@dc/storage';
import type { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { Authenticator, checkBeforeBody } from './auth/authenticator';
import { OperatorToken } from './auth/operator-token.guard';
import { GATEWAY_RUNTIME_PATCHES } from './runtime-patches';
import { FailedAuthLimiter } from './auth/failed-auth-limiter';
import { KeyCache } from './auth/key-cache';
import { CoreClient } from './core-client/core-client';
import { GatewayDependencies, OperatorApiModule, PublicApiModule } from './gateway.module';
import { refuseOversizedBodiesBeforeUpload } from './http/body-limits';
import { configureFastify, fastifyOptions, requestIdFor } from './http/fastify-setup';
import { GatewayFastifyAdapter } from './http/gateway-fastify-adapter';
import { registerDocsRoutes } from './http/docs';
import { registerHealthRoutes, registerMetricsRoute } from './http/health';
import { registerCompression } from './http/compression';
import { GatewayMetrics, ListenerName } from './metrics/gateway-metrics';
import { registerQueueBoard } from './operator-queues/queue-board';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { RateLimiter } from './rate-limit/rate-limiter';
import { registerUploads } from './uploads';

export interface GatewayOptions {
  /** Public controllers beside PUBLIC_CONTROLLERS: only the test entry point (apps/gateway/testing/main.ts) adds any. */
  extraPublicControllers?: Type[];
  /** Runs on the public listener's Fastify before compression is registered: the test entry's exchange recorder. */
  configurePublicListener?: (fastify: FastifyInstance) => void;
}

/**
 * gateway: the HTTP edge. Two listeners in one process: the public API (PORT, /public/v1) and
 * the operator API (OPERATOR_PORT, /operator/v1). All domain work is forwarded to api-core.
 * Started by main.ts (production) or testing/main.ts (the e2e stack).
 */
export function startGateway(options: GatewayOptions = {}): void {
  void run(options).catch((err: unknown) => {
    process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

async function run(options: GatewayOptions): Promise<void> {
  const config = loadConfigOrExit('gateway');
  const patches = installRuntimePatches(GATEWAY_RUNTIME_PATCHES, config.runtimePatchesOff);
  const logger = createLogger(config.serviceName, config.logLevel, { format: config.logFormat, bufferBytes: config.logBufferBytes });
  logRuntimePatches(logger, patches);
  warnOfMissingNodeArgs(logger, 'gateway', config.runtimePatchesOff);
  // Fail fast when Redis is down (no offline queue): rate limiting fails open, idempotency closed.
  const edgeRedisOptions = { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, enableAutoPipelining: true };
  const redis = createRedis(config.redis, { ...edgeRedisOptions, commandTimeout: config.redis.commandTimeoutMs });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  // Idempotency-Key records: in a Redis of their own when IDEMPOTENCY_REDIS_URL is set (docs/adr/0027).
  const idempotencyRedis = config.idempotencyRedis.separate
    ? createRedis(config.idempotencyRedis, { ...edgeRedisOptions, commandTimeout: config.idempotencyRedis.commandTimeoutMs })
    : redis;
  if (idempotencyRedis !== redis) idempotencyRedis.on('error', (err) => logger.warn({ err: err.message }, 'redis error (idempotency records)'));
  // Requests too large for one NATS message even gzipped are parked here (docs/adr/0017).
  const payloads = new PayloadStore(redis, config.redis.keyPrefix);
  // The gateway's NATS user (docs/adr/0026); every request it sends is signed with INTERNAL_SIGNING_KEY.
  const bus = await NatsBus.connect({ ...config.nats, name: 'gateway', service: 'gateway', payloads });
  const keyCache = new KeyCache(config.gateway.authCacheTtlMs);
  const metrics = new GatewayMetrics();
  const core = new CoreClient(bus, metrics.coreRoundTrip);
  bus.subscribe(AUTH_INVALIDATION_SUBJECT, (message) => keyCache.dropOrganization((message as AuthInvalidation).organizationId));
  await redis.connect().catch((err: Error) => logger.warn({ err: err.message }, 'redis not reachable at start-up'));
  if (idempotencyRedis !== redis) {
    await idempotencyRedis.connect().catch((err: Error) => logger.warn({ err: err.message }, 'redis of idempotency records not reachable at start-up'));
  }
  const deps: GatewayDependencies = {
    config,
    logger,
    core,
    authenticator: new Authenticator(core, keyCache, new FailedAuthLimiter(redis, config.redis.keyPrefix, config.gateway.authFailuresPerMinute), logger),
    rateLimiter: new RateLimiter(redis, config.redis.keyPrefix, config.rateLimit.unitsPerMinute),
    idempotency: new IdempotencyStore(idempotencyRedis, config.redis.keyPrefix, config.idempotency.ttlSeconds, config.idempotency.leaseMs, {
      records: config.idempotency.maxRecordsPerKey,
      bytes: config.idempotency.maxBytesPerKey,
    }),
    metrics,
    storage: createStorage(config),
  };

  // API keys guard /public/v1 only: the upload route under /public/uploads is authorised by its signed URL.
  const { app: publicApp, listener: publicListener } = await createListener(PublicApiModule.register(deps, options.extraPublicControllers), 'public', deps, bus, redis, async (fastify) => {
    checkBeforeBody(fastify, '/public/v1/', (request) => deps.authenticator.authenticate(request));
    options.configurePublicListener?.(fastify);
    await registerCompression(fastify, config.gateway.compressMinBytes);
  });
  await registerUploads(publicApp.getHttpAdapter().getInstance(), config, logger);
  const operatorToken = new OperatorToken(config.gateway.operatorToken);
  const { app: operatorApp, listener: operatorListener } = await createListener(OperatorApiModule.register(deps), 'operator', deps, bus, redis, (fastify) =>
    checkBeforeBody(fastify, '/operator/v1/', (request) => operatorToken.verify(request.headers.authorization)),
  );
  registerMetricsRoute(operatorApp.getHttpAdapter().getInstance(), metrics, metricsAccess(config));
  // The queue board (/operator/queues): its own Redis connection, never part of readiness (docs/adr/0032).
  const board = await registerQueueBoard(operatorApp.getHttpAdapter().getInstance(), config, operatorToken, logger);
  registerDocsRoutes(publicApp.getHttpAdapter().getInstance());
  const ports = {
    publicPort: await listen(publicApp, config, config.gateway.port),
    operatorPort: await listen(operatorApp, config, config.gateway.operatorPort),
  };
  logger.info(ports, 'gateway listening');

  onShutdownSignal(logger, config.shutdownGraceMs, async () => {
    // New requests get 503 service_unavailable in the envelope while in-flight ones finish.
    publicListener.startDraining();
    operatorListener.startDraining();
    await Promise.all([publicApp.close(), operatorApp.close()]);
    await bus.drain();
    redis.disconnect();
    if (idempotencyRedis !== redis) idempotencyRedis.disconnect();
    await board.close();
  });
}

async function createListener(
  module: object,
  listenerName: ListenerName,
  deps: GatewayDependencies,
  bus: NatsBus,
  redis: Redis,
  addHooks: (fastify: FastifyInstance) => void | Promise<void> = () => undefined,
) {
  const adapter = new GatewayFastifyAdapter(fastifyOptions(deps.config.gateway, deps.logger as Logger));
  const app = await NestFactory.create<NestFastifyApplication>(module as never, adapter, {
    logger: new NestPinoLogger(deps.logger),
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  const listener = configureFastify(fastify, deps.logger as Logger, { metrics: deps.metrics, listener: listenerName });
  await addHooks(fastify);
  refuseOversizedBodiesBeforeUpload(app.getHttpServer(), (headers) => requestIdFor(headers, deps.config.gateway.trustRequestId), deps.logger as Logger);
  registerHealthRoutes(fastify, bus, redis);
  app.setGlobalPrefix(`${listenerName}/v1`);
  await app.init();
  return { app, listener };
}

async function listen(app: NestFastifyApplication, config: AppConfig, port: number): Promise<number> {
  await app.listen(port, config.gateway.host);
  return (app.getHttpServer().address() as AddressInfo).port;
}
