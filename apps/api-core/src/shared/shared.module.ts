import { DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import { Database, ReadRouter } from '@dc/database';
import { ErasureTombstones, type ImportJob } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import type { ObjectStorage } from '@dc/storage';
import { NatsBus } from '@dc/transport';
import type { Queue } from 'bullmq';
import { CoreMetrics } from '../metrics/core-metrics';
import { CONFIG, IMPORT_QUEUE, LOGGER, STORAGE, TRANSACTIONS } from '../tokens';
import { LookupsRepository } from './lookups.repository';

/** The process-wide objects main.ts builds (tests build their own). */
export interface ApiCoreDependencies {
  config: AppConfig;
  logger: Logger;
  database: Database;
  bus: NatsBus;
  /** Uploaded CSV files (upload targets, size and header checks at enqueue). */
  storage: ObjectStorage;
  /** Producer of IMPORTS_QUEUE: enqueue adds one job per import. */
  importQueue: Queue<ImportJob>;
  /** Served on the health port; a private instance when not given (tests). */
  metrics?: CoreMetrics;
  /** Where public reads run (docs/adr/0050); not given: all on `database`. */
  reads?: ReadRouter;
}

/**
 * What every feature module may inject without importing it: the process-wide objects (the file
 * storage, the import queue and the erasure tombstones among them), the transaction runner (TRANSACTIONS), the shared
 * lookups. (Each request's reply is made by RpcDispatcher, outside Nest's pipeline.)
 */
@Global()
@Module({})
export class SharedModule {
  static register(deps: ApiCoreDependencies): DynamicModule {
    return {
      module: SharedModule,
      providers: [
        { provide: CONFIG, useValue: deps.config },
        { provide: LOGGER, useValue: deps.logger },
        { provide: Database, useValue: deps.database },
        { provide: TRANSACTIONS, useValue: deps.database },
        { provide: NatsBus, useValue: deps.bus },
        { provide: STORAGE, useValue: deps.storage },
        { provide: IMPORT_QUEUE, useValue: deps.importQueue },
        { provide: ErasureTombstones, useValue: new ErasureTombstones(deps.config.erasure.hmacKey) },
        { provide: CoreMetrics, useValue: deps.metrics ?? new CoreMetrics() },
        { provide: ReadRouter, useValue: deps.reads ?? ReadRouter.primaryOnly(deps.database) },
        LookupsRepository,
      ],
      exports: [CONFIG, LOGGER, Database, ReadRouter, TRANSACTIONS, NatsBus, STORAGE, IMPORT_QUEUE, ErasureTombstones, LookupsRepository],
    };
  }
}
