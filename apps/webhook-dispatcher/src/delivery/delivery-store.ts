import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import { CONFIG } from '../dispatcher.tokens';
import { AttemptRecord, ClaimRequest, ClaimResult, DeliveryRepository } from './delivery.repository';
import { MicroBatcher } from './micro-batcher';

/** Deliveries per claim or record statement, at most. */
const MAX_BATCH = 500;

/**
 * Claims and records attempts for the delivery worker, batched: the jobs that claim (or record) at
 * the same moment share one statement, and while the statements in flight are busy the next ones
 * gather more, so the number of statements per second stays low however many jobs run
 * (docs/adr/0020). Each caller still gets its own answer, and a record resolves only once
 * committed, so a job never completes before its outcome is in the database.
 */
@Injectable()
export class DeliveryStore {
  private readonly claims: MicroBatcher<ClaimRequest, ClaimResult>;
  private readonly records: MicroBatcher<AttemptRecord, boolean>;

  constructor(repository: DeliveryRepository, @Inject(CONFIG) config: AppConfig) {
    // Leave two connections of the pool to the relay, the enqueuer, the pruner and the metrics.
    const perKind = Math.max(1, Math.floor((config.database.poolSize - 2) / 2));
    const maxAttempts = config.webhooks.maxAttempts;
    this.claims = new MicroBatcher((requests) => repository.claim(requests, maxAttempts), { maxBatch: MAX_BATCH, maxConcurrent: perKind });
    this.records = new MicroBatcher((records) => repository.record(records), { maxBatch: MAX_BATCH, maxConcurrent: perKind });
  }

  claim(request: ClaimRequest): Promise<ClaimResult> {
    return this.claims.submit(request);
  }

  /** Resolves once the attempt and the delivery's new state are committed; true when the delivery changed. */
  record(record: AttemptRecord): Promise<boolean> {
    return this.records.submit(record);
  }
}
