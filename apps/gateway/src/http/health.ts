import { BearerTokens, METRICS_UNAUTHORIZED_BODY } from '@dc/observability';
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

/** Prometheus text format, on the operator listener only, to a bearer of METRICS_TOKEN or OPERATOR_TOKEN. */
export function registerMetricsRoute(app: FastifyInstance, metrics: GatewayMetrics, access: BearerTokens): void {
  app.get('/metrics', async (request, reply) => {
    if (!access.accepts(request.headers.authorization)) return reply.status(401).send(METRICS_UNAUTHORIZED_BODY);
    return reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
