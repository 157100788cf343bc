import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { IMPORTS_QUEUE, ImportJob } from '@dc/contracts';
import { IMPORT_JOB_NAME, IMPORT_JOB_OPTIONS, importJobPriority } from '@dc/imports';
import type { Logger } from '@dc/observability';
import type { Queue } from 'bullmq';
import { LOGGER } from '../importer.tokens';
import { ImportsRepository } from '../imports.repository';

/** How often unfinished imports are checked for a job, after the check at start-up. */
const REPAIR_INTERVAL_MS = 60_000;

/**
 * Every import in status queued or processing has a job: api-core adds it after committing the
 * imports row, so a crash between the two, a Redis that lost its data, or a job that failed while
 * Redis was unreachable leave an import without one. At start-up and every minute, such imports are
 * enqueued again — with the import id as job id, so an existing job makes the add a no-op.
 */
@Injectable()
export class ImportRecovery {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;

  constructor(
    private readonly imports: ImportsRepository,
    @InjectQueue(IMPORTS_QUEUE) private readonly queue: Queue<ImportJob>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    queue.on('error', (err) => logger.warn({ err: err.message }, 'import queue error'));
  }

  /** Runs a first pass now and repeats it; resolves after the first pass. */
  async start(): Promise<void> {
    await this.repairOnce();
    this.timer = setInterval(() => void this.repairOnce(), REPAIR_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.pass;
  }

  /** One pass; failures are logged (the next pass tries again). Returns how many jobs were added. */
  async repairOnce(): Promise<number> {
    const run = async () => {
      let added = 0;
      for (const { id: importId, organizationId, place } of await this.imports.unfinished()) {
        if (await this.queue.getJob(importId)) continue;
        await this.queue.add(IMPORT_JOB_NAME, { importId, organizationId }, { ...IMPORT_JOB_OPTIONS, jobId: importId, priority: importJobPriority(place) });
        added += 1;
      }
      if (added) this.logger.info({ added }, 'unfinished imports enqueued again');
      return added;
    };
    const pass = run().catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message }, 'import repair pass failed');
      return 0;
    });
    this.pass = pass.then(() => undefined);
    return pass;
  }
}
