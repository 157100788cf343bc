import { createMetricsRegistry, metricsSourceOf, ObservedQueue, registerQueueDepth } from '@dc/observability';
import type { AttemptErrorClass } from '@dc/webhooks';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { BusyReason } from '../delivery/fair-shares';

/** How a delivery's step ended, as counted by webhook_deliveries_total. */
export type DeliveryOutcome = 'succeeded' | 'failed' | 'retry' | 'cancelled';
/** An attempt's outcome label: `success`, or its error class. */
export type AttemptOutcomeLabel = 'success' | AttemptErrorClass;

const DELIVERY_OUTCOMES: DeliveryOutcome[] = ['succeeded', 'failed', 'retry', 'cancelled'];
const ATTEMPT_OUTCOMES: AttemptOutcomeLabel[] = ['success', 'http_status', 'timeout', 'connection', 'dns', 'tls', 'refused_address', 'refused_scheme'];

/** What the scrape-time gauges read (the queue in Redis, the outbox in Postgres). */
export interface MetricsSources {
  queue: ObservedQueue;
  relayLagSeconds: () => Promise<number>;
  /** Time left until the first partitioned table has no partition for new rows (docs/adr/0051). */
  partitionsAheadSeconds: () => Promise<number>;
}

/**
 * Prometheus metrics of the webhook dispatcher, served at GET /metrics on its health port
 * (docs/adr/0020, docs/observability.md): deliveries by outcome, attempt latency by outcome, the
 * queue's depth by state and its oldest waiting job (registerQueueDepth), events relayed and the
 * relay's lag, webhooks disabled automatically, plus the process defaults (CPU, memory, event-loop lag).
 */
export class DispatcherMetrics {
  readonly registry = createMetricsRegistry();

  readonly deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Delivery steps by outcome: succeeded, failed (last attempt of a series failed), retry (an attempt failed, another follows), cancelled (webhook disabled or deleted, organization suspended).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  readonly attemptDuration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Duration of delivery attempts (connect to answer or timeout), by outcome: success or the error class.',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly postponedJobs = new Counter({
    name: 'webhook_jobs_postponed_total',
    help: 'Jobs put back without an attempt: receiver_busy (its receiver had the most requests in flight one webhook may have), organization_busy (the slow receivers of its organization held the share of the process it may have), not_due (the job came back before its retry time).',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  readonly relayedEvents = new Counter({
    name: 'webhook_relay_events_total',
    help: 'Outbox events relayed (turned into deliveries for the matching webhooks, possibly none).',
    registers: [this.registry],
  });

  readonly autoDisabledWebhooks = new Counter({
    name: 'webhooks_auto_disabled_total',
    help: 'Webhooks this dispatcher disabled because every delivery attempt had failed for WEBHOOK_DISABLE_AFTER_DAYS (their pending deliveries cancelled; an operator enables them again).',
    registers: [this.registry],
  });

  readonly relayLag: Gauge = new Gauge({
    name: 'webhook_relay_lag_seconds',
    help: 'Age of the oldest outbox event not yet relayed (0 when the relay is caught up), read from Postgres at scrape time.',
    registers: [this.registry],
    collect: async () => {
      const lag = await this.sources?.relayLagSeconds().catch(() => null);
      if (lag !== null && lag !== undefined) this.relayLag.set(lag);
    },
  });

  readonly partitionsAhead: Gauge = new Gauge({
    name: 'db_partitions_ahead_seconds',
    help: 'Time left until the end of the last monthly partition of the partitioned table that has the fewest ahead (calls, promises, outbox events, webhook deliveries and attempts: docs/adr/0051), read from Postgres at scrape time; writes of a row past it fail.',
    registers: [this.registry],
    collect: async () => {
      const seconds = await this.sources?.partitionsAheadSeconds().catch(() => null);
      if (seconds !== null && seconds !== undefined) this.partitionsAhead.set(seconds);
    },
  });

  private sources?: MetricsSources;

  constructor() {
    // Every outcome is exported from the start (at 0), so rates and alerts see the series at once.
    for (const outcome of DELIVERY_OUTCOMES) this.deliveries.inc({ outcome }, 0);
    for (const outcome of ATTEMPT_OUTCOMES) this.attemptDuration.zero({ outcome });
    for (const reason of ['receiver_busy', 'organization_busy', 'not_due']) this.postponedJobs.inc({ reason }, 0);
  }

  /** Where the scrape-time gauges read from; until set, they report nothing. */
  readFrom(sources: MetricsSources): void {
    this.sources = sources;
    registerQueueDepth(this.registry, [sources.queue]);
  }

  delivery(outcome: DeliveryOutcome): void {
    this.deliveries.inc({ outcome });
  }

  postponed(reason: BusyReason | 'not_due'): void {
    this.postponedJobs.inc({ reason });
  }

  webhookAutoDisabled(): void {
    this.autoDisabledWebhooks.inc();
  }

  attempt(outcome: AttemptOutcomeLabel, durationMs: number): void {
    this.attemptDuration.observe({ outcome }, durationMs / 1000);
  }

  exposition(): Promise<{ contentType: string; body: string }> {
    return metricsSourceOf(this.registry)();
  }
}
