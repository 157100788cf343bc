import { createMetricsRegistry } from '@dc/observability';
import { Counter, Histogram } from 'prom-client';

/** Which listener answered: the public API or the operator API (its own port). */
export type ListenerName = 'public' | 'operator';

/** Request latency buckets (seconds): from a cached read to the longest request timeout. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const CORE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Prometheus metrics of the gateway, served at GET /metrics on the operator listener
 * (docs/observability.md): HTTP latency by listener, method, route template and status; the NATS
 * round trip to api-core by pattern and outcome; rate-limit refusals; idempotent replays and records
 * dropped for an API key's quota; the process defaults.
 */
export class GatewayMetrics {
  readonly registry = createMetricsRegistry();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests answered, by listener (public, operator), method, route template (never the raw URL; "unmatched" for no route) and status code; from the first byte received to the last byte sent.',
    labelNames: ['listener', 'method', 'route', 'status_code'],
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  readonly coreRoundTrip = new Histogram({
    name: 'gateway_core_request_duration_seconds',
    help: 'Round trip of requests to api-core over NATS, by RPC pattern and outcome (ok, or the error code of the reply; service_unavailable when no answer came in time).',
    labelNames: ['pattern', 'outcome'],
    buckets: CORE_BUCKETS,
    registers: [this.registry],
  });

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

  readonly idempotencyRecordsDropped = new Counter({
    name: 'gateway_idempotency_records_dropped_total',
    help: "Idempotency-Key records dropped, oldest first, to keep an API key within its quota (IDEMPOTENCY_MAX_RECORDS_PER_KEY, IDEMPOTENCY_MAX_BYTES_PER_KEY): a retry with one of those keys runs again.",
    registers: [this.registry],
  });

  /** One child per (listener, method, route, status): its label object is built once (prom-client still checks and hashes it on every observe). */
  private readonly httpChildren = new Map<string, Histogram.Internal<string>>();

  /** Records one answered request (Fastify's onResponse hook); `route` is the matched route's template. */
  observeRequest(listener: ListenerName, method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${listener} ${method} ${statusCode} ${route}`;
    let child = this.httpChildren.get(key);
    if (!child) {
      child = this.httpDuration.labels(listener, method, route, String(statusCode));
      this.httpChildren.set(key, child);
    }
    child.observe(seconds);
  }
}
