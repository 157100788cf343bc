import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { WEBHOOK_DELIVERIES_QUEUE } from '@dc/contracts';
import { bullPrefix, type AppConfig } from '@dc/config';
import { Database } from '@dc/database';
import type { Logger } from '@dc/observability';
import { SecretBox, WebhookHttpClient } from '@dc/webhooks';
import type { Redis } from 'ioredis';
import { DeliveryProcessor } from './delivery/delivery.processor';
import { DeliveryRepository } from './delivery/delivery.repository';
import { DeliveryStore } from './delivery/delivery-store';
import { AutoDisabler } from './disabling/auto-disabler';
import { DisablingRepository } from './disabling/disabling.repository';
import { Dispatcher } from './dispatcher';
import { CONFIG, LOGGER } from './dispatcher.tokens';
import { DispatcherMetrics } from './metrics/dispatcher-metrics';
import { Pruner } from './pruning/pruner';
import { PruningRepository } from './pruning/pruning.repository';
import { DeliveryEnqueuer } from './relay/delivery-enqueuer';
import { OutboxRelay } from './relay/outbox-relay';
import { RelayRepository } from './relay/relay.repository';

/** The process-wide objects main.ts builds and closes. */
export interface DispatcherDependencies {
  config: AppConfig;
  logger: Logger;
  database: Database;
  /** BullMQ's connection: maxRetriesPerRequest null and no command timeout (the worker duplicates it to block). */
  queueConnection: Redis;
  http: WebhookHttpClient;
  secretBox: SecretBox;
  metrics: DispatcherMetrics;
}

/**
 * Job options of every delivery job: removed when it ends (the database keeps the log). A job
 * fails only when the dispatcher could not reach Postgres or Redis (an attempt's failure is a
 * delayed retry, not a BullMQ failure): it is then run again every 5 s, effectively without end —
 * what the attempt may do is decided by the database when it runs.
 */
export const DELIVERY_JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: true,
  attempts: 1_000_000,
  backoff: { type: 'fixed', delay: 5_000 },
} as const;

@Module({})
export class DispatcherModule {
  static register(deps: DispatcherDependencies): DynamicModule {
    return {
      module: DispatcherModule,
      imports: [
        // The key prefix keeps dispatchers of parallel test stacks on their own queues.
        BullModule.forRoot({ connection: deps.queueConnection, prefix: bullPrefix(deps.config.redis) }),
        BullModule.registerQueue({ name: WEBHOOK_DELIVERIES_QUEUE, defaultJobOptions: DELIVERY_JOB_OPTIONS }),
      ],
      providers: [
        { provide: CONFIG, useValue: deps.config },
        { provide: LOGGER, useValue: deps.logger },
        { provide: Database, useValue: deps.database },
        { provide: WebhookHttpClient, useValue: deps.http },
        { provide: SecretBox, useValue: deps.secretBox },
        { provide: DispatcherMetrics, useValue: deps.metrics },
        RelayRepository,
        DeliveryEnqueuer,
        OutboxRelay,
        DeliveryRepository,
        DeliveryStore,
        DeliveryProcessor,
        PruningRepository,
        Pruner,
        DisablingRepository,
        AutoDisabler,
        Dispatcher,
      ],
    };
  }
}
