import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { DeliveryJob, WEBHOOK_DELIVERIES_QUEUE } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import { runInJobContext, type Logger } from '@dc/observability';
import { AttemptOutcome, SecretBox, WebhookHttpClient, webhookSecretContext } from '@dc/webhooks';
import { DelayedError, Job } from 'bullmq';
import { CONFIG, LOGGER } from '../dispatcher.tokens';
import { DispatcherMetrics } from '../metrics/dispatcher-metrics';
import { ClaimedAttempt } from './delivery.repository';
import { DeliveryStore } from './delivery-store';
import { FairShares, SharedSlot } from './fair-shares';
import { ReceiverFairness } from './receiver-fairness';
import { decideAfterAttempt, RetryPolicy } from './retry-schedule';
import { SecretCache } from './secret-cache';
import { signedRequest } from './signed-request';

/**
 * BullMQ worker settings (docs/adr/0020). A killed dispatcher's active jobs return to the queue
 * once their lock has expired and a stalled-job check has run: within lockDuration + 2 ×
 * stalledInterval (25 s). The lock is renewed every lockDuration / 2 (7.5 s), so only an event loop
 * blocked that long could lose it. maxStalledCount is effectively unbounded: a job that stalled
 * is always run again, never failed (and removed) for it — the database's attempt count, not
 * BullMQ's, bounds the attempts of a series. The worker starts when the dispatcher does (autorun
 * off), with concurrency WEBHOOK_CONCURRENCY.
 */
export const DELIVERY_WORKER_SETTINGS = {
  autorun: false,
  lockDuration: 15_000,
  stalledInterval: 5_000,
  maxStalledCount: 1_000_000,
} as const;

/**
 * Decrypted secrets are kept this long (and at most this many). Keyed by ciphertext, which every claim
 * reads from the webhook row: a rotated secret is used from the first attempt claimed after the
 * rotation commits, whatever this TTL (secret-cache.ts).
 */
const SECRET_TTL_MS = 60_000;
const SECRET_CACHE_ENTRIES = 10_000;
/** A receiver whose requests take this long (on average, or its oldest one in flight) is slow: capped at a tenth of the concurrency. */
const SLOW_RECEIVER_MS = 1_000;
/** A job over its receiver's cap waits at least / at most this long before it is tried again. */
const MIN_POSTPONE_MS = 250;
const MAX_POSTPONE_MS = 60_000;

/**
 * One attempt per job run (docs/adr/0020): check its receiver's and its organization's caps (at
 * either, postpone the job, consuming nothing; docs/adr/0044), claim the attempt in the database
 * (batched with the other jobs of the moment), sign and send it once, record the outcome (batched,
 * committed before the job ends), and delay the job for the next attempt when the series goes on.
 * A claim that finds the delivery finished, cancelled or in another series ends the job without
 * sending: duplicates are harmless.
 */
@Processor(WEBHOOK_DELIVERIES_QUEUE, DELIVERY_WORKER_SETTINGS)
export class DeliveryProcessor extends WorkerHost {
  private readonly fairness: FairShares;
  private readonly secrets: SecretCache;
  private readonly policy: RetryPolicy;
  private sweepTimer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly store: DeliveryStore,
    private readonly http: WebhookHttpClient,
    secretBox: SecretBox,
    private readonly metrics: DispatcherMetrics,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
    const webhooks = config.webhooks;
    this.policy = { maxAttempts: webhooks.maxAttempts, retryDelayMs: webhooks.retryDelayMs, retryJitterMs: webhooks.retryJitterMs };
    this.fairness = new FairShares({
      concurrency: webhooks.concurrency,
      organizationSharePercent: webhooks.organizationSharePercent,
      slowAfterMs: SLOW_RECEIVER_MS,
      minPostponeMs: MIN_POSTPONE_MS,
      maxPostponeMs: MAX_POSTPONE_MS,
    });
    this.secrets = new SecretCache((ciphertext, webhookId) => secretBox.open(ciphertext, webhookSecretContext(webhookId)), { ttlMs: SECRET_TTL_MS, maxEntries: SECRET_CACHE_ENTRIES });
  }

  /** Requests in flight allowed to one slow / one prompt webhook in this process. */
  get receiverCaps(): { slowCap: number; fastCap: number } {
    return ReceiverFairness.capsFor(this.config.webhooks.concurrency);
  }

  /** Requests in flight allowed to one organization in this process. */
  get organizationCap(): number {
    return this.fairness.organizations.cap;
  }

  /** Starts taking jobs. */
  start(): void {
    const worker = this.worker;
    worker.concurrency = this.config.webhooks.concurrency;
    worker.on('error', (err) => this.logger.warn({ err: err.message }, 'delivery worker error'));
    worker.on('failed', (job, err) => {
      if (job) this.logger.warn({ deliveryId: job.data.deliveryId, err: err.message, retry: job.attemptsMade }, 'delivery job failed; it will run again');
    });
    this.running = worker.run().catch((err: unknown) => this.logger.error({ err }, 'delivery worker stopped'));
    this.sweepTimer = setInterval(() => this.fairness.sweep(), 60_000);
    this.sweepTimer.unref();
  }

  /** Stops taking jobs and waits for those in progress to end (their outcomes recorded). */
  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.worker.close();
    await this.running;
  }

  /** Every log line of the job carries the request id that wrote the event, the job id and the delivery id. */
  async process(job: Job<DeliveryJob>, token?: string): Promise<void> {
    const { deliveryId, requestId } = job.data;
    return runInJobContext(requestId, { jobId: String(job.id), deliveryId }, () => this.processInContext(job, token));
  }

  private async processInContext(job: Job<DeliveryJob>, token?: string): Promise<void> {
    const { webhookId } = job.data;
    // The slot is taken before the first await: jobs started together cannot all pass the caps.
    // A job queued before jobs named their organization counts as one of its own.
    const reservation = this.fairness.reserve(webhookId, job.data.organizationId ?? webhookId);
    if (reservation.kind === 'postpone') {
      this.metrics.postponed(reservation.reason);
      return this.postpone(job, token, reservation.delayMs);
    }
    try {
      return await this.attemptOnce(job, token, reservation.slot);
    } finally {
      reservation.slot.release();
    }
  }

  /** Claims the attempt, sends it in `slot`, records the outcome and schedules what follows. */
  private async attemptOnce(job: Job<DeliveryJob>, token: string | undefined, slot: SharedSlot): Promise<void> {
    const { deliveryId, webhookId, series } = job.data;
    const claim = await this.store.claim({ deliveryId, series });
    switch (claim.kind) {
      case 'none':
        return;
      case 'early':
        this.metrics.postponed('not_due');
        return this.postpone(job, token, claim.dueInMs);
      case 'cancelled':
        this.metrics.delivery('cancelled');
        return;
      case 'exhausted':
        this.metrics.delivery('failed');
        this.logger.warn({ deliveryId, webhookId, series }, 'webhook delivery failed: its last attempt was interrupted');
        return;
      case 'send':
        break;
    }
    const attempt = claim.attempt;
    const outcome = await this.send(attempt, slot);
    this.metrics.attempt(outcome.ok ? 'success' : (outcome.errorClass ?? 'connection'), outcome.durationMs);
    const decision = decideAfterAttempt(outcome.ok, attempt.number, attempt.seriesStart, this.policy);
    const retryInMs = decision.outcome === 'retry' ? decision.delayMs : null;
    if (!outcome.ok) this.logFailure(attempt, outcome, retryInMs);
    const applied = await this.store.record({
      deliveryId,
      webhookId: attempt.webhookId,
      series,
      number: attempt.number,
      statusCode: outcome.statusCode,
      error: outcome.error,
      errorClass: outcome.errorClass,
      durationMs: Math.round(outcome.durationMs),
      address: outcome.address,
      outcome: decision.outcome,
      retryInMs,
    });
    if (!applied) return; // cancelled or redelivered meanwhile: that change decides what follows
    this.metrics.delivery(decision.outcome);
    if (retryInMs !== null) return this.postpone(job, token, retryInMs);
  }

  /**
   * Signs and sends the attempt once; its duration feeds the receiver's average, and its end frees both slots.
   * Signed with the secrets the claim read from the webhook row: the current one and, during a
   * rotation's overlap, the previous one (docs/adr/0048).
   */
  private async send(attempt: ClaimedAttempt, slot: SharedSlot): Promise<AttemptOutcome> {
    const secrets = [this.secrets.secretOf(attempt.webhookId, attempt.secretCiphertext)];
    if (attempt.previousSecretCiphertext !== null) secrets.push(this.secrets.secretOf(attempt.webhookId, attempt.previousSecretCiphertext));
    const { body, headers } = signedRequest(attempt, secrets, attempt.standardWebhooks, Math.floor(Date.now() / 1000));
    slot.begin();
    try {
      return await this.http.post(attempt.url, body, headers);
    } finally {
      slot.release();
    }
  }

  /** One line per failed attempt: ids, attempt number and error class — never the secret or the body. */
  private logFailure(attempt: ClaimedAttempt, outcome: AttemptOutcome, retryInMs: number | null): void {
    this.logger.warn(
      {
        deliveryId: attempt.deliveryId,
        webhookId: attempt.webhookId,
        attempt: attempt.number,
        series: attempt.series,
        errorClass: outcome.errorClass,
        statusCode: outcome.statusCode,
        address: outcome.address,
        durationMs: Math.round(outcome.durationMs),
        next: retryInMs === null ? 'failed' : 'retry',
        retryInMs,
      },
      'webhook attempt failed',
    );
  }

  /** Puts the job back in the queue until `delayMs` from now, without counting a BullMQ attempt. */
  private async postpone(job: Job<DeliveryJob>, token: string | undefined, delayMs: number): Promise<never> {
    await job.moveToDelayed(Date.now() + Math.max(0, delayMs), token);
    throw new DelayedError();
  }
}
