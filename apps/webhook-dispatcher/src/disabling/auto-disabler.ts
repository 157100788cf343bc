import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import { CONFIG, LOGGER } from '../dispatcher.tokens';
import { DispatcherMetrics } from '../metrics/dispatcher-metrics';
import { PassResult, PollingLoop } from '../scheduling/polling-loop';
import { autoDisabledReason, disableCheckIntervalMs } from './disabled-reason';
import { DisablingRepository } from './disabling.repository';

/** Webhooks disabled per transaction, at most; a full batch runs the next one at once. */
const DISABLE_BATCH = 100;

/**
 * Automatic disabling (docs/adr/0048): every dispatcher checks, a tenth of the period apart (at
 * most once a minute), for enabled webhooks whose every attempt has failed for
 * WEBHOOK_DISABLE_AFTER_DAYS (their failing_since, kept by the attempts' records, that old), and
 * one at a time (an advisory lock) disables them: reason recorded, pending deliveries cancelled,
 * a warning logged, webhooks_auto_disabled_total counted. Enabling again is the operator's PATCH.
 */
@Injectable()
export class AutoDisabler {
  private readonly loop: PollingLoop;

  constructor(
    private readonly repository: DisablingRepository,
    private readonly metrics: DispatcherMetrics,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    const intervalMs = disableCheckIntervalMs(config.webhooks.disableAfterSeconds);
    this.loop = new PollingLoop(() => this.run(), logger, { name: 'webhook auto-disabling', intervalMs, initialDelayMs: intervalMs });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One batch: the webhooks due are disabled, each logged and counted. */
  async run(): Promise<PassResult> {
    const seconds = this.config.webhooks.disableAfterSeconds;
    const disabled = await this.repository.disableBatch(seconds, DISABLE_BATCH, (webhook) => autoDisabledReason(webhook.failingSince, seconds, webhook.lastError));
    if (disabled === null) return 'idle';
    for (const webhook of disabled) {
      this.metrics.webhookAutoDisabled();
      this.logger.warn(
        {
          webhookId: webhook.id,
          organizationId: webhook.organizationId,
          failingSince: webhook.failingSince.toISOString(),
          cancelledDeliveries: webhook.cancelledDeliveries,
          reason: webhook.reason,
        },
        'webhook disabled automatically',
      );
    }
    return disabled.length >= DISABLE_BATCH && !this.loop.stopping ? 'more' : 'idle';
  }
}
