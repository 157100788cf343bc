import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import { CONFIG, LOGGER } from '../dispatcher.tokens';
import { PollingLoop } from '../scheduling/polling-loop';
import { PruningRepository, RETAINED_TABLES } from './pruning.repository';

/** How often a dispatcher tries to prune (one at a time holds the lock), and the first try after start. */
export const PRUNE_INTERVAL_MS = 5 * 60_000;
const FIRST_PRUNE_AFTER_MS = 60_000;
/**
 * Months of partitions kept ready after the current one (docs/adr/0051): a month's rows need its
 * partition before they arrive, so the dispatchers may all be down for two months before writes of
 * the partitioned tables fail (alert PartitionsRunningOut well before).
 */
export const PARTITION_MONTHS_AHEAD = 3;

/**
 * Housekeeping (docs/adr/0020, 0048, 0051), every few minutes, by one dispatcher at a time (a
 * transaction-scoped advisory lock): clears the previous secrets whose rotation overlap has ended
 * (signing ignores them from their expiry on, whether cleared yet or not); creates the monthly
 * partitions of the partitioned tables for the current month and PARTITION_MONTHS_AHEAD after it;
 * drops the months of webhook attempts, deliveries and outbox events whose every row is older than
 * WEBHOOK_RETENTION_DAYS — a month at a time, so events stay listed between the retention and a
 * month more. Calls, promises and payments are never dropped.
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

  /** One pass at `now` (tests move it); answers the partitions created and dropped (none while another dispatcher holds the lock). */
  async run(now = Date.now()): Promise<{ created: number; dropped: string[] }> {
    const cleared = await this.repository.clearExpiredPreviousSecrets();
    if (cleared > 0) this.logger.info({ webhooks: cleared }, 'cleared webhook secrets whose rotation overlap ended');
    const { created, busy } = (await this.repository.createPartitions(new Date(now), PARTITION_MONTHS_AHEAD)) ?? { created: 0, busy: [] };
    if (created > 0) this.logger.info({ partitions: created }, 'created monthly partitions');
    if (busy.length) this.logger.warn({ tables: busy }, 'monthly partitions not created: their tables stayed busy (tried again next run)');
    const days = this.config.webhooks.retentionDays;
    const before = new Date(now - days * 86_400_000);
    const dropped: string[] = [];
    for (const table of RETAINED_TABLES) {
      if (this.loop.stopping) break;
      dropped.push(...((await this.repository.dropPartitionsBefore(table, before)) ?? []));
    }
    if (dropped.length) this.logger.info({ partitions: dropped, retentionDays: days }, 'dropped partitions past the retention');
    return { created, dropped };
  }
}
