/** The BullMQ queue of webhook deliveries: filled by the relay, drained by the delivery worker. */
export const WEBHOOK_DELIVERIES_QUEUE = 'webhook-deliveries';

/**
 * One job per delivery and series; everything else is read from the database when it runs (so an
 * erasure or a disabled webhook is seen by the next attempt). webhookId and organizationId let the
 * worker bound the attempts in flight to one receiver and to one organization before it touches the
 * database.
 */
export interface DeliveryJob {
  deliveryId: string;
  webhookId: string;
  /** The webhook's organization, whose attempts in flight are bounded too (docs/adr/0044); absent in jobs queued before that. */
  organizationId?: string;
  series: number;
  /** The request that wrote the delivery's event (null when unknown): the worker logs under it. */
  requestId?: string | null;
}

/**
 * The job id: the delivery id for its first series, so a second enqueue of the same delivery is a
 * no-op; `<delivery id>-r<series>` for an operator's redelivery, whose
 * earlier job may still be finishing.
 */
export function deliveryJobId(job: DeliveryJob): string {
  return job.series === 1 ? job.deliveryId : `${job.deliveryId}-r${String(job.series)}`;
}
