import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { DeliveryJob, deliveryJobId, WEBHOOK_DELIVERIES_QUEUE } from '@dc/contracts';
import type { Queue } from 'bullmq';
import { RelayRepository } from './relay.repository';

/** Deliveries marked queued (and jobs added) per transaction. */
export const ENQUEUE_BATCH = 500;

/**
 * Gives every pending delivery without a job its BullMQ job: the relay's new deliveries, those left
 * unqueued by a crash between the relay's commit and the enqueue (start-up repair), and operators'
 * redeliveries (series + 1). Job ids are deterministic (`deliveryJobId`), so adding one twice is a
 * no-op; jobs are removed when they end, the database keeps the log.
 */
@Injectable()
export class DeliveryEnqueuer {
  constructor(
    private readonly relay: RelayRepository,
    @InjectQueue(WEBHOOK_DELIVERIES_QUEUE) private readonly queue: Queue<DeliveryJob>,
  ) {}

  /** Enqueues every unqueued pending delivery, a batch per transaction; answers how many. */
  async enqueueAll(shouldStop: () => boolean = () => false): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.relay.markQueued(ENQUEUE_BATCH, (jobs) => this.add(jobs));
      total += count;
      if (count < ENQUEUE_BATCH || shouldStop()) return total;
    }
  }

  private async add(jobs: DeliveryJob[]): Promise<void> {
    jobs.sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : a.deliveryId > b.deliveryId ? 1 : 0));
    await this.queue.addBulk(
      jobs.map((job) => ({
        name: 'deliver',
        data: { deliveryId: job.deliveryId, webhookId: job.webhookId, organizationId: job.organizationId, series: job.series, requestId: job.requestId ?? null },
        opts: { jobId: deliveryJobId(job) },
      })),
    );
  }
}
