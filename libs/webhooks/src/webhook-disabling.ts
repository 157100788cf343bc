/**
 * Disabling a webhook, by an operator (api-core: PATCH enabled false, DELETE) or automatically (the
 * webhook-dispatcher, after WEBHOOK_DISABLE_AFTER_DAYS of failures; docs/adr/0048): its pending
 * deliveries become cancelled at once, completed now with nothing further due. A job still queued
 * for one claims nothing and sends nothing (docs/adr/0020). One text for both services, so both
 * cancel alike; each runs it through its own driver (plain SQL: no database dependency here).
 *
 * `webhookIds` is an SQL expression for the set of webhook ids: a placeholder (`$1`) or a
 * subquery (`SELECT id FROM disabled`). Append `RETURNING …` to learn which deliveries were cancelled.
 */
export function cancelPendingDeliveriesSql(webhookIds: string): string {
  return `UPDATE webhook_deliveries SET status = 'cancelled', completed_at = now(), next_attempt_at = NULL, updated_at = now()
    WHERE webhook_id IN (${webhookIds}) AND status = 'pending'`;
}
