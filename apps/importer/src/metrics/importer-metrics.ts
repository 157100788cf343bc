import { createMetricsRegistry, metricsSourceOf, type MetricsSource } from '@dc/observability';
import { Counter, Histogram } from 'prom-client';

/**
 * How one run of an import job ended: completed or failed (the import reached its end state),
 * skipped (it had already ended), interrupted (the importer stopping: handed back), busy (another
 * importer holds it), retry (Postgres, Redis or the storage failed: tried again from its checkpoint).
 */
const OUTCOMES = ['completed', 'failed', 'skipped', 'interrupted', 'yielded', 'busy', 'retry'] as const;
export type ImportRunOutcome = (typeof OUTCOMES)[number];

/**
 * Prometheus metrics of the importer, served at GET /metrics on its health port
 * (docs/observability.md): job runs by outcome and duration, rows staged (rate() gives rows/s),
 * the imports queue's depth (registerQueueDepth, read at scrape time) and the process defaults.
 */
export class ImporterMetrics {
  readonly registry = createMetricsRegistry();

  readonly jobDuration = new Histogram({
    name: 'import_job_duration_seconds',
    help: 'Runs of import jobs, by outcome (completed, failed, skipped, interrupted, busy, retry); a long import may take several runs.',
    labelNames: ['outcome'],
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [this.registry],
  });

  readonly rows = new Counter({
    name: 'import_rows_total',
    help: 'CSV records read, checked and staged (committed chunks); rate() gives the rows per second.',
    registers: [this.registry],
  });

  constructor() {
    // Every outcome from the start, so rates and alerts see the series at once.
    for (const outcome of OUTCOMES) this.jobDuration.zero({ outcome });
  }

  jobRun(outcome: ImportRunOutcome, seconds: number): void {
    this.jobDuration.observe({ outcome }, seconds);
  }

  get source(): MetricsSource {
    return metricsSourceOf(this.registry);
  }
}
