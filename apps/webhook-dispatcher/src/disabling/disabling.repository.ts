import { Injectable } from '@nestjs/common';
import { Database, Prisma } from '@dc/database';
import { cancelPendingDeliveriesSql } from '@dc/webhooks';
import type { LastError } from './disabled-reason';

/** The advisory lock that lets one dispatcher at a time disable webhooks (any constant shared by all replicas). */
const DISABLE_LOCK = 'webhook-dispatcher:disable';

/** The cancellation an operator's disable makes (libs/webhooks), for the webhooks this statement disabled. */
const CANCEL_PENDING_OF_DISABLED = Prisma.raw(cancelPendingDeliveriesSql('SELECT id FROM disabled'));

/** The newest deliveries of a webhook whose attempts the last error is taken from. */
const LAST_ERROR_DELIVERIES = 50;

/** An enabled webhook every attempt of which has failed for the period. */
export interface FailingWebhook {
  id: string;
  organizationId: string;
  failingSince: Date;
  /** Its most recent attempt since failingSince (among its 50 newest deliveries); null when none is found. */
  lastError: LastError | null;
}

export interface DisabledWebhook extends FailingWebhook {
  reason: string;
  /** Its pending deliveries, now cancelled. */
  cancelledDeliveries: number;
}

interface DueRow {
  id: string;
  organizationId: string;
  failingSince: Date;
  errorClass: string | null;
  statusCode: number | null;
}

/** The SQL of automatic disabling (docs/adr/0048). */
@Injectable()
export class DisablingRepository {
  constructor(private readonly database: Database) {}

  /**
   * Disables, in one transaction, up to `limit` enabled live webhooks whose failing_since is more
   * than `failingForSeconds` ago: enabled false, disabled_at now, disabled_reason as `reasonOf`
   * writes it from the webhook's failing_since and last attempt, and their pending deliveries
   * cancelled exactly as an operator's disable cancels them (cancelPendingDeliveriesSql), in one
   * statement. The webhook rows are locked (`FOR NO KEY UPDATE SKIP LOCKED`: one an operator is
   * changing waits for the next pass) from the read to the write. Null when another dispatcher holds
   * the lock.
   */
  async disableBatch(failingForSeconds: number, limit: number, reasonOf: (webhook: FailingWebhook) => string): Promise<DisabledWebhook[] | null> {
    return this.database.transaction(async (tx) => {
      const [{ locked }] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${DISABLE_LOCK})) AS locked`;
      if (!locked) return null;
      // The last error: the latest attempt among the webhook's newest deliveries (index (webhook_id,
      // id), bounded whatever its history; an older delivery redelivered since is not looked at).
      const due = await tx.$queryRaw<DueRow[]>`
        SELECT w.id, w.organization_id AS "organizationId", w.failing_since AS "failingSince",
               last.error_class AS "errorClass", last.status_code AS "statusCode"
        FROM webhooks w
        LEFT JOIN LATERAL (
          SELECT a.error_class, a.status_code
          FROM (SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = w.id ORDER BY d.id DESC LIMIT ${LAST_ERROR_DELIVERIES}) d
          JOIN webhook_delivery_attempts a ON a.delivery_id = d.id
          WHERE a.created_at >= w.failing_since
          ORDER BY a.created_at DESC, a.id DESC
          LIMIT 1
        ) last ON true
        WHERE w.enabled AND w.deleted_at IS NULL
          AND w.failing_since < now() - make_interval(secs => ${failingForSeconds}::int)
        ORDER BY w.id
        LIMIT ${limit}
        FOR NO KEY UPDATE OF w SKIP LOCKED`;
      if (due.length === 0) return [];
      const webhooks: FailingWebhook[] = due.map((row) => ({
        id: row.id,
        organizationId: row.organizationId,
        failingSince: row.failingSince,
        lastError: row.errorClass === null ? null : { errorClass: row.errorClass, statusCode: row.statusCode },
      }));
      const reasons = webhooks.map(reasonOf);
      const rows = await tx.$queryRaw<{ id: string; cancelled: number }[]>`
        WITH r AS (
          SELECT * FROM unnest(${webhooks.map((w) => w.id)}::text[], ${reasons}::text[]) AS r(id, reason)
        ),
        disabled AS (
          UPDATE webhooks w SET enabled = false, disabled_at = now(), disabled_reason = r.reason, updated_at = now()
          FROM r WHERE w.id = r.id
          RETURNING w.id
        ),
        cancelled AS (
          ${CANCEL_PENDING_OF_DISABLED}
          RETURNING webhook_id
        )
        SELECT disabled.id, (SELECT count(*) FROM cancelled c WHERE c.webhook_id = disabled.id)::int AS cancelled
        FROM disabled`;
      const cancelled = new Map(rows.map((row) => [row.id, row.cancelled]));
      return webhooks
        .map((webhook, i) => ({ ...webhook, reason: reasons[i], cancelledDeliveries: cancelled.get(webhook.id) ?? 0 }))
        .filter((webhook) => cancelled.has(webhook.id));
    });
  }
}
