import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import { CONFIG, LOGGER } from '../dispatcher.tokens';
import { DispatcherMetrics } from '../metrics/dispatcher-metrics';
import { PassResult, PollingLoop } from '../scheduling/polling-loop';
import { DeliveryEnqueuer } from './delivery-enqueuer';
import { RelayRepository } from './relay.repository';

/**
 * The relay loop of each dispatcher replica (docs/adr/0020): every WEBHOOK_RELAY_INTERVAL_MS while
 * idle, and at once again after a full batch, one transaction turns up to
 * WEBHOOK_RELAY_BATCH_SIZE outbox events into deliveries (a backlog's first batches are smaller); then every unqueued pending delivery gets
 * its job. The enqueue also runs when no event was relayed, which picks up operators' redeliveries
 * and, on the first pass after start-up, anything a crash left unqueued.
 */
/** The first batch after an idle pass is this small, then doubles up to WEBHOOK_RELAY_BATCH_SIZE. */
const FIRST_BATCH = 100;

@Injectable()
export class OutboxRelay {
  private readonly loop: PollingLoop;
  /**
   * Events to take in the next pass. A backlog starts with a small batch, so its first deliveries
   * are enqueued (and sent) within a fraction of a second, and grows while batches come back full.
   */
  private batchSize: number;

  constructor(
    private readonly relay: RelayRepository,
    private readonly enqueuer: DeliveryEnqueuer,
    private readonly metrics: DispatcherMetrics,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new PollingLoop(() => this.pass(), logger, { name: 'outbox relay', intervalMs: config.webhooks.relayIntervalMs });
    this.batchSize = Math.min(FIRST_BATCH, config.webhooks.relayBatchSize);
  }

  start(): void {
    this.loop.start();
  }

  /** Resolves once the pass in progress (if any) has committed or rolled back. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass: relay a batch, then enqueue what has no job yet (at start-up: whatever a crash left). */
  async pass(): Promise<PassResult> {
    const batchSize = this.batchSize;
    const started = performance.now();
    const relayed = await this.relay.relayBatch(batchSize);
    if (relayed.events > 0) this.metrics.relayedEvents.inc(relayed.events);
    const relayMs = performance.now() - started;
    const enqueued = await this.enqueuer.enqueueAll(() => this.loop.stopping);
    if (relayed.events > 0 || enqueued > 0) {
      this.logger.debug({ ...relayed, enqueued, relayMs: Math.round(relayMs), enqueueMs: Math.round(performance.now() - started - relayMs) }, 'relay pass');
    }
    const full = relayed.events >= batchSize;
    this.batchSize = full ? Math.min(batchSize * 2, this.config.webhooks.relayBatchSize) : Math.min(FIRST_BATCH, this.config.webhooks.relayBatchSize);
    return full && !this.loop.stopping ? 'more' : 'idle';
  }
}
