import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import { CONFIG, LOGGER } from './importer.tokens';
import { ImportsProcessor } from './imports.processor';
import { ImportRecovery } from './recovery/import-recovery';
import { UploadSweeper } from './recovery/upload-sweeper';

/**
 * The importer's moving parts, started and stopped in order: the repair of unfinished imports
 * without a job (first pass before taking work), the sweeper of expired uploads, then the worker; on
 * shutdown the loops stop, and the worker lets each run commit its current chunk and hand its job back.
 */
@Injectable()
export class Importer {
  constructor(
    private readonly processor: ImportsProcessor,
    private readonly recovery: ImportRecovery,
    private readonly sweeper: UploadSweeper,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.recovery.start();
    this.sweeper.start();
    this.processor.start();
    const imports = this.config.imports;
    this.logger.info(
      { concurrency: imports.concurrency, chunkRows: imports.chunkRows, statementTimeoutMs: imports.statementTimeoutMs, storage: this.config.storage.driver },
      'import worker started',
    );
  }

  async stop(): Promise<void> {
    await Promise.all([this.recovery.stop(), this.sweeper.stop()]);
    await this.processor.stop();
  }
}
