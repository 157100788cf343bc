import { Injectable } from '@nestjs/common';
import { Database } from '@dc/database';

/** The advisory lock that lets one dispatcher at a time prune (any constant shared by all replicas). */
const PRUNE_LOCK = 'webhook-dispatcher:prune';

/** The SQL of retention: old relayed events with their finished deliveries and attempts; expired previous secrets. */
@Injectable()
export class PruningRepository {
  constructor(private readonly database: Database) {}

  /**
   * Forgets the previous secret of every webhook whose rotation overlap has ended (docs/adr/0048):
   * signing already ignores it; this keeps no ciphertext of a retired secret at rest. One statement;
   * idempotent, so every dispatcher may run it. A rotation committed meanwhile is re-checked by the
   * UPDATE and kept. Answers how many were cleared.
   */
  async clearExpiredPreviousSecrets(): Promise<number> {
    return this.database.client.$executeRaw`
      UPDATE webhooks SET previous_secret_ciphertext = NULL, previous_secret_expires_at = NULL
      WHERE previous_secret_expires_at <= now()`;
  }

  /**
   * Deletes, in one transaction, up to `limit` events relayed more than `retentionDays` ago whose
   * deliveries are all finished (none pending), with those deliveries and their attempts.
   * `beforeEventId` (an id of the cut-off time: ids are time-ordered) lets the scan walk the primary
   * key from its start instead of the whole table. Answers how many events went, or null when
   * another dispatcher holds the pruning lock.
   */
  async pruneBatch(beforeEventId: string, retentionDays: number, limit: number): Promise<number | null> {
    return this.database.transaction(async (tx) => {
      const [{ locked }] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${PRUNE_LOCK})) AS locked`;
      if (!locked) return null;
      const [{ deleted }] = await tx.$queryRaw<{ deleted: number }[]>`
        WITH ev AS (
          SELECT e.id FROM outbox_events e
          WHERE e.id < ${beforeEventId}
            AND e.relayed_at < now() - make_interval(days => ${retentionDays}::int)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
          ORDER BY e.id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ),
        dlv AS (
          SELECT d.id FROM webhook_deliveries d JOIN ev ON ev.id = d.event_id
        ),
        attempts AS (
          DELETE FROM webhook_delivery_attempts a USING dlv WHERE a.delivery_id = dlv.id
        ),
        deliveries AS (
          DELETE FROM webhook_deliveries d USING dlv WHERE d.id = dlv.id
        ),
        events AS (
          DELETE FROM outbox_events e USING ev WHERE e.id = ev.id RETURNING 1
        )
        SELECT count(*)::int AS deleted FROM events`;
      return deleted;
    });
  }
}
