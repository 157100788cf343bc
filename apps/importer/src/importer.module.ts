import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { ErasureTombstones, IMPORTS_QUEUE } from '@dc/contracts';
import { bullPrefix, type AppConfig } from '@dc/config';
import { Database, type WritePositions } from '@dc/database';
import { IMPORT_JOB_OPTIONS } from '@dc/imports';
import type { Logger } from '@dc/observability';
import type { ObjectStorage } from '@dc/storage';
import type { Redis } from 'ioredis';
import { Importer } from './importer';
import { CONFIG, LOGGER, STORAGE, WRITE_POSITIONS } from './importer.tokens';
import { ImportsProcessor } from './imports.processor';
import { ImportsRepository } from './imports.repository';
import { RejectedRowsFile } from './finishing/rejected-rows-file';
import { ImportMerger } from './merging/import-merger';
import { ImporterMetrics } from './metrics/importer-metrics';
import { MergeRepository } from './merging/merge.repository';
import { FileReader } from './reading/file-reader';
import { StagingRepository } from './reading/staging.repository';
import { ImportRecovery } from './recovery/import-recovery';
import { ImportFairness } from './scheduling/import-fairness';
import { UploadSweeper } from './recovery/upload-sweeper';
import { RunImportUseCase } from './run-import.usecase';

/** The process-wide objects main.ts builds and closes. */
export interface ImporterDependencies {
  config: AppConfig;
  logger: Logger;
  database: Database;
  /** BullMQ's connection: maxRetriesPerRequest null and no command timeout (the worker duplicates it to block). */
  queueConnection: Redis;
  storage: ObjectStorage;
  metrics: ImporterMetrics;
  /** Each API key's last write position, for read-your-writes on replicas (docs/adr/0050); null without replicas. */
  writePositions: WritePositions | null;
}

@Module({})
export class ImporterModule {
  static register(deps: ImporterDependencies): DynamicModule {
    return {
      module: ImporterModule,
      imports: [
        // The key prefix keeps importers of parallel test stacks on their own queues.
        BullModule.forRoot({ connection: deps.queueConnection, prefix: bullPrefix(deps.config.redis) }),
        BullModule.registerQueue({ name: IMPORTS_QUEUE, defaultJobOptions: IMPORT_JOB_OPTIONS }),
      ],
      providers: [
        { provide: CONFIG, useValue: deps.config },
        { provide: LOGGER, useValue: deps.logger },
        { provide: STORAGE, useValue: deps.storage },
        { provide: Database, useValue: deps.database },
        { provide: ImporterMetrics, useValue: deps.metrics },
        { provide: WRITE_POSITIONS, useValue: deps.writePositions },
        { provide: ErasureTombstones, useValue: new ErasureTombstones(deps.config.erasure.hmacKey) },
        ImportsRepository,
        StagingRepository,
        FileReader,
        MergeRepository,
        ImportMerger,
        RejectedRowsFile,
        RunImportUseCase,
        ImportsProcessor,
        ImportRecovery,
        ImportFairness,
        UploadSweeper,
        Importer,
      ],
    };
  }
}
