import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { IMPORTS_QUEUE, ImportJob } from '@dc/contracts';
import { importJobPriority } from '@dc/imports';
import type { AppConfig } from '@dc/config';
import { runInJobContext, type Logger } from '@dc/observability';
import { DelayedError, Job } from 'bullmq';
import { ImportInterrupted, ImportYielded, OrganizationBusy } from './import-errors';
import { CONFIG, LOGGER } from './importer.tokens';
import { ImporterMetrics, ImportRunOutcome } from './metrics/importer-metrics';
import { ImportAttemptFailed, ImportBusy, RunImportUseCase } from './run-import.usecase';

/**
 * BullMQ worker settings (docs/adr/0022), those of the webhook dispatcher (ADR 0020): a killed
 * importer's job returns to the queue once its lock has expired and a stalled-job check has run,
 * within lockDuration + 2 × stalledInterval (25 s), and is then resumed by any importer from the
 * import's checkpoints. maxStalledCount is effectively unbounded: the imports row, not BullMQ,
 * decides what is left to do and how many runs an import may take (its `attempts`, counted by each
 * run and bounded by IMPORT_MAX_ATTEMPTS, docs/adr/0043). Started by the importer (autorun off),
 * with concurrency IMPORT_CONCURRENCY.
 */
export const IMPORT_WORKER_SETTINGS = {
  autorun: false,
  lockDuration: 15_000,
  stalledInterval: 5_000,
  maxStalledCount: 1_000_000,
} as const;

/**
 * A run that could not finish (Postgres, Redis or the storage unreachable) is tried again after this
 * long, × 4 for each attempt it already used: 5 s, 20 s, 80 s, 320 s… (IMPORT_MAX_ATTEMPTS bounds them).
 */
const RETRY_MS = 5_000;
const MAX_RETRY_MS = 600_000;
/** An import another process is working on is looked at again after this long. */
const BUSY_MS = 10_000;
/** An import whose organization already runs its share of imports is looked at again after this long. */
const ORGANIZATION_BUSY_MS = 2_000;

/**
 * One job per import (jobId = import id). A run processes the import from its checkpoints; a run
 * that did not end it (the importer stopping, another importer holding it, an infrastructure
 * error) puts the job back in the queue instead of failing it.
 */
@Processor(IMPORTS_QUEUE, IMPORT_WORKER_SETTINGS)
export class ImportsProcessor extends WorkerHost {
  private readonly stopping = new AbortController();
  private running?: Promise<void>;

  constructor(
    private readonly runImport: RunImportUseCase,
    private readonly metrics: ImporterMetrics,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  start(): void {
    const worker = this.worker;
    worker.concurrency = this.config.imports.concurrency;
    worker.on('error', (err) => this.logger.warn({ err: err.message }, 'import worker error'));
    // Only when even handing the job back failed (Redis unreachable): the repair enqueues it again.
    worker.on('failed', (job, err) => this.logger.warn({ importId: job?.data.importId, err: err.message }, 'import job failed; the repair will enqueue it again'));
    this.running = worker.run().catch((err: unknown) => this.logger.error({ err }, 'import worker stopped'));
  }

  /** Stops taking jobs; runs in progress end after their current chunk and hand their job back. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.worker.close();
    await this.running;
  }

  /**
   * Every log line of the run carries the request id that created the import (job data), the job id
   * and the import id; each run is timed by outcome (import_job_duration_seconds).
   */
  async process(job: Job<ImportJob>, token?: string): Promise<void> {
    const { importId, requestId } = job.data;
    return runInJobContext(requestId, { jobId: String(job.id), importId }, async () => {
      const started = performance.now();
      let outcome: ImportRunOutcome = 'retry';
      try {
        outcome = await this.runImport.execute(importId, { signal: this.stopping.signal, priority: job.opts.priority });
      } catch (err) {
        if (err instanceof ImportYielded) {
          outcome = 'yielded';
          // Behind the waiting organization's import, at its place in its own organization now.
          await job.changePriority({ priority: importJobPriority(await this.runImport.placeOf(importId)) });
          return this.postpone(job, token, 0);
        }
        if (err instanceof OrganizationBusy) {
          outcome = 'busy';
          return this.postpone(job, token, ORGANIZATION_BUSY_MS);
        }
        if (err instanceof ImportInterrupted) {
          outcome = 'interrupted';
          return this.postpone(job, token, 0);
        }
        if (err instanceof ImportBusy) {
          outcome = 'busy';
          return this.postpone(job, token, BUSY_MS);
        }
        const attempts = err instanceof ImportAttemptFailed ? err.attempts : 1;
        const retryInMs = Math.min(MAX_RETRY_MS, RETRY_MS * 4 ** (attempts - 1));
        this.logger.warn({ importId, err: (err as Error).message, attempts, retryInMs }, 'import run failed; it will resume from its checkpoint');
        return this.postpone(job, token, retryInMs);
      } finally {
        this.metrics.jobRun(outcome, (performance.now() - started) / 1000);
      }
    });
  }

  /** Back to the queue until `delayMs` from now, without counting a BullMQ attempt. */
  private async postpone(job: Job<ImportJob>, token: string | undefined, delayMs: number): Promise<never> {
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }
}
