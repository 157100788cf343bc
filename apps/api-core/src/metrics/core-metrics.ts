import { createMetricsRegistry } from '@dc/observability';
import { Counter, Gauge, Histogram } from 'prom-client';

/**
 * Prometheus metrics of api-core, served at GET /metrics on its health port (docs/observability.md):
 * handler duration by RPC pattern and outcome, requests in flight, requests shed at max
 * concurrency, and the process defaults.
 */
export class CoreMetrics {
  readonly registry = createMetricsRegistry();

  readonly handlerDuration = new Histogram({
    name: 'api_core_rpc_duration_seconds',
    help: 'Handling of RPC requests, by pattern and outcome (ok, or the error code of the reply), from the handler being called to its reply.',
    labelNames: ['pattern', 'outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly shed = new Counter({
    name: 'api_core_rpc_shed_total',
    help: 'Requests refused unrun with service_unavailable because the replica already ran API_CORE_MAX_CONCURRENCY requests (docs/adr/0014), by pattern.',
    labelNames: ['pattern'],
    registers: [this.registry],
  });

  private inFlightSource: () => number = () => 0;

  readonly inFlight: Gauge = new Gauge({
    name: 'api_core_rpc_in_flight',
    help: 'Requests taken and not yet answered, at scrape time.',
    registers: [this.registry],
    collect: () => this.inFlight.set(this.inFlightSource()),
  });

  /** Where api_core_rpc_in_flight reads from (the NATS server). */
  readInFlightFrom(source: () => number): void {
    this.inFlightSource = source;
  }

  handled(pattern: string, outcome: string, seconds: number): void {
    this.handlerDuration.observe({ pattern, outcome }, seconds);
  }
}
