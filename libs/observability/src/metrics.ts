import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { MetricsSource } from './health-server';

/**
 * A registry with the process metrics every app exports (`process_*`, `nodejs_*`: CPU, memory,
 * event-loop lag, GC). No `service` label: Prometheus adds `job` and `instance` to every series it
 * scrapes (deploy/observability/prometheus/prometheus.yml names each job after its app).
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The registry as `GET /metrics` serves it (HealthServer's MetricsSource). */
export function metricsSourceOf(registry: Registry): MetricsSource {
  return async () => ({ contentType: registry.contentType, body: await registry.metrics() });
}

/** The BullMQ job states whose counts are exported (completed jobs are removed on completion). */
export const QUEUE_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'failed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** What the queue-depth gauges read of a BullMQ Queue (structural, so this library needs no bullmq). */
export interface ObservedQueue {
  readonly name: string;
  getJobCounts(...types: QueueState[]): Promise<Record<string, number>>;
  getJobs(types: ['waiting'], start: number, end: number, asc: boolean): Promise<Array<{ timestamp: number } | undefined>>;
}

/**
 * `queue_jobs{queue,state}` and `queue_oldest_waiting_seconds{queue}`, read from Redis at scrape
 * time (no polling between scrapes). A queue that cannot be read leaves its series out of that
 * scrape instead of failing it. Every replica working a queue reports the same numbers: aggregate
 * with `max by (queue, state)`.
 */
export function registerQueueDepth(registry: Registry, queues: readonly ObservedQueue[]): void {
  const jobs: Gauge<'queue' | 'state'> = new Gauge({
    name: 'queue_jobs',
    help: 'Jobs of a BullMQ queue by state (waiting, prioritized, delayed, active, failed), read from Redis at scrape time.',
    labelNames: ['queue', 'state'],
    registers: [registry],
    collect: async () => {
      jobs.reset();
      await Promise.all(
        queues.map(async (queue) => {
          const counts = await queue.getJobCounts(...QUEUE_STATES).catch(() => null);
          if (counts) for (const state of QUEUE_STATES) jobs.set({ queue: queue.name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
  const oldest: Gauge<'queue'> = new Gauge({
    name: 'queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting to be taken (0 when none waits), read from Redis at scrape time.',
    labelNames: ['queue'],
    registers: [registry],
    collect: async () => {
      oldest.reset();
      await Promise.all(
        queues.map(async (queue) => {
          const [job] = await queue.getJobs(['waiting'], 0, 0, true).catch(() => [null]);
          if (job === null) return;
          oldest.set({ queue: queue.name }, job ? Math.max(0, (Date.now() - job.timestamp) / 1000) : 0);
        }),
      );
    },
  });
}
