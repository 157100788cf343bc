import { Inject, Injectable } from '@nestjs/common';
import { IdPrefix } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import { encodeTime } from 'ulid';
import { CONFIG, LOGGER } from '../dispatcher.tokens';
import { PollingLoop } from '../scheduling/polling-loop';
import { PruningRepository } from './pruning.repository';

/** How often a dispatcher tries to prune (one at a time holds the lock), and the first try after start. */
export const PRUNE_INTERVAL_MS = 5 * 60_000;
const FIRST_PRUNE_AFTER_MS = 60_000;
/** Events per delete transaction: short transactions, short locks. */
const PRUNE_BATCH = 1_000;
/** Batches per run, at most; the rest waits for the next run. */
const MAX_BATCHES_PER_RUN = 100;

/**
 * The smallest event id of instant `ms`: every event written before it has a smaller id (ids are
 * `evt_` + ULID, whose first 10 characters encode the creation time in milliseconds).
 */
export function firstEventIdAt(ms: number): string {
  return `${IdPrefix.Event}_${encodeTime(ms, 10)}0000000000000000`;
}

/**
 * Retention (docs/adr/0020): every few minutes, relayed events older than WEBHOOK_RETENTION_DAYS
 * are deleted with their deliveries and attempts, in bounded batches, by one dispatcher at a time
 * (a transaction-scoped advisory lock per batch). An event with a delivery still pending stays
 * until it finishes. Each run also clears the previous secrets whose rotation overlap has ended
 * (docs/adr/0048; signing ignores them from their expiry on, whether cleared yet or not).
 */
@Injectable()
export class Pruner {
  private readonly loop: PollingLoop;

  constructor(
    private readonly repository: PruningRepository,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new PollingLoop(() => this.run().then(() => 'idle'), logger, {
      name: 'webhook pruning',
      intervalMs: PRUNE_INTERVAL_MS,
      initialDelayMs: FIRST_PRUNE_AFTER_MS,
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Prunes until nothing old is left, another dispatcher holds the lock, or the run's bound. */
  async run(): Promise<number> {
    const cleared = await this.repository.clearExpiredPreviousSecrets();
    if (cleared > 0) this.logger.info({ webhooks: cleared }, 'cleared webhook secrets whose rotation overlap ended');
    const days = this.config.webhooks.retentionDays;
    const before = firstEventIdAt(Date.now() - days * 86_400_000);
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !this.loop.stopping; batch += 1) {
      const deleted = await this.repository.pruneBatch(before, days, PRUNE_BATCH);
      if (deleted === null) break;
      total += deleted;
      if (deleted < PRUNE_BATCH) break;
    }
    if (total > 0) this.logger.info({ events: total, retentionDays: days }, 'pruned old webhook events');
    return total;
  }
}
