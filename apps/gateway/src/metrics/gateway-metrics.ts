import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of the gateway, served at GET /metrics on the operator listener. */
export class GatewayMetrics {
  readonly registry = new Registry();

  readonly rateLimitStoreErrors = new Counter({
    name: 'gateway_rate_limit_store_errors_total',
    help: 'Rate-limit checks that could not reach Redis (requests were admitted: fail open).',
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'gateway_rate_limited_total',
    help: 'Requests refused with 429 rate_limited.',
    registers: [this.registry],
  });

  readonly idempotentReplays = new Counter({
    name: 'gateway_idempotent_replays_total',
    help: 'Responses replayed from an Idempotency-Key record.',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
