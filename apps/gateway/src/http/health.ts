import type { NatsBus } from '@dc/transport';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { GatewayMetrics } from '../metrics/gateway-metrics';

/**
 * Liveness and readiness, outside /public so they never count against a key's rate limit.
 * Readiness needs NATS (every request goes to api-core). Redis is reported but does not fail
 * readiness: rate limiting fails open without it and only Idempotency-Key requests are refused.
 */
export function registerHealthRoutes(app: FastifyInstance, bus: NatsBus, redis: Redis): void {
  app.get('/health/live', async () => ({ status: 'ok' }));
  app.get('/health/ready', async (_request, reply) => {
    const nats = bus.isConnected() ? 'ok' : 'disconnected';
    const ready = nats === 'ok';
    return reply
      .status(ready ? 200 : 503)
      .send({ status: ready ? 'ok' : 'unavailable', details: { nats, redis: redis.status === 'ready' ? 'ok' : redis.status } });
  });
}

/** Prometheus text format, on the operator listener only. */
export function registerMetricsRoute(app: FastifyInstance, metrics: GatewayMetrics): void {
  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}
