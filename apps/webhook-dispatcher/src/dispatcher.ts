import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { DeliveryJob, WEBHOOK_DELIVERIES_QUEUE } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import type { Queue } from 'bullmq';
import { DeliveryProcessor } from './delivery/delivery.processor';
import { CONFIG, LOGGER } from './dispatcher.tokens';
import { DispatcherMetrics } from './metrics/dispatcher-metrics';
import { OutboxRelay } from './relay/outbox-relay';
import { RelayRepository } from './relay/relay.repository';
import { Pruner } from './pruning/pruner';
import { PruningRepository } from './pruning/pruning.repository';
import { AutoDisabler } from './disabling/auto-disabler';

/**
 * The dispatcher's moving parts, started and stopped in order: the delivery worker, the relay loop
 * (whose first pass, at once, also enqueues whatever a crash left unqueued), the pruner and the
 * automatic disabling of failing webhooks; on shutdown the loops stop first, then the worker
 * finishes the attempts in flight.
 */
@Injectable()
export class Dispatcher {
  constructor(
    private readonly processor: DeliveryProcessor,
    private readonly relay: OutboxRelay,
    private readonly pruner: Pruner,
    private readonly disabler: AutoDisabler,
    metrics: DispatcherMetrics,
    relayRepository: RelayRepository,
    pruningRepository: PruningRepository,
    @InjectQueue(WEBHOOK_DELIVERIES_QUEUE) queue: Queue<DeliveryJob>,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    metrics.readFrom({
      queue,
      relayLagSeconds: () => relayRepository.relayLagSeconds(),
      partitionsAheadSeconds: () => pruningRepository.partitionsAheadSeconds(),
    });
    queue.on('error', (err) => logger.warn({ err: err.message }, 'delivery queue error'));
  }

  start(): void {
    this.processor.start();
    this.relay.start();
    this.pruner.start();
    this.disabler.start();
    const webhooks = this.config.webhooks;
    this.logger.info(
      {
        concurrency: webhooks.concurrency,
        receiverCaps: this.processor.receiverCaps,
        organizationCap: this.processor.organizationCap,
        maxAttempts: webhooks.maxAttempts,
        retryDelayMs: webhooks.retryDelayMs,
        retryJitterMs: webhooks.retryJitterMs,
        attemptTimeoutMs: webhooks.attemptTimeoutMs,
        relayIntervalMs: webhooks.relayIntervalMs,
        disableAfterSeconds: webhooks.disableAfterSeconds,
      },
      'webhook delivery started',
    );
  }

  async stop(): Promise<void> {
    await Promise.all([this.relay.stop(), this.pruner.stop(), this.disabler.stop()]);
    await this.processor.stop();
  }
}
