import { Injectable } from '@nestjs/common';
import { WebhookDeliveryView, WebhookView } from '@dc/contracts';
import { Database, isoDates, newId, Prisma, Stored, Tx } from '@dc/database';

/** A webhook as its SQL returns it: the WebhookView, timestamps still Date. */
type WebhookRow = Stored<WebhookView, 'createdAt' | 'updatedAt'>;

/** A delivery as its SQL returns it: the WebhookDeliveryView (attempts built by Postgres), timestamps still Date. */
type DeliveryRow = Stored<WebhookDeliveryView, 'nextAttemptAt' | 'createdAt' | 'completedAt'>;

export interface NewWebhook {
  id: string;
  organizationId: string;
  url: string;
  portfolioIds: string[];
  standardWebhooks: boolean;
  /** SecretBox.seal of the `whsec_…` secret; the plaintext is never stored. */
  secretCiphertext: string;
}

/** The fields a PATCH may change; absent ones are kept. */
export interface WebhookChanges {
  url?: string;
  portfolioIds?: string[];
  enabled?: boolean;
  standardWebhooks?: boolean;
}

/** Why a delivery could not be redelivered (see `redeliveryBlocker`). */
export interface RedeliveryState {
  status: string;
  webhookEnabled: boolean;
  webhookDeleted: boolean;
}

/** webhooks columns named as WebhookView's fields, in its order; the secret never leaves the table. */
const WEBHOOK_COLUMNS = Prisma.sql`
  w.id, w.organization_id AS "organizationId", w.url, w.portfolio_ids AS "portfolioIds", w.enabled,
  w.standard_webhooks AS "standardWebhooks", w.created_at AS "createdAt", w.updated_at AS "updatedAt"`;

/** An instant as the API writes it (toISOString), for timestamps inside JSON built by Postgres. */
const isoText = (column: string) => Prisma.raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * A delivery `d` joined to its event `e`, named as WebhookDeliveryView's fields in its order; the
 * attempts (DeliveryAttemptView, oldest first) aggregated by Postgres from the
 * (delivery_id, number) index, inside the same statement as the page: one query per page.
 */
const DELIVERY_COLUMNS = Prisma.sql`
  d.id, d.webhook_id AS "webhookId", d.event_id AS "eventId", e.type, d.status, d.attempt_count AS "attemptCount",
  d.series, d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt", d.completed_at AS "completedAt",
  COALESCE((SELECT json_agg(json_build_object('number', a.number, 'series', a.series, 'createdAt', ${isoText('a.created_at')},
      'statusCode', a.status_code, 'durationMs', a.duration_ms, 'errorClass', a.error_class, 'error', a.error, 'address', a.address)
      ORDER BY a.number) FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS attempts`;

/** Finished deliveries may be redelivered; a pending one is still being attempted. */
const FINISHED = ['succeeded', 'failed', 'cancelled'];

/** The only SQL of webhooks and their delivery log; the rules are WebhooksService's. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly db: Database) {}

  /** A new webhook's id, known before its insert: its secret is sealed for it. */
  newId(): string {
    return newId('whk');
  }

  async insert(webhook: NewWebhook): Promise<WebhookView> {
    const now = new Date();
    const [row] = await this.db.client.$queryRaw<WebhookRow[]>`
      INSERT INTO webhooks AS w (id, organization_id, url, portfolio_ids, enabled, secret_ciphertext, standard_webhooks, created_at, updated_at)
      VALUES (${webhook.id}, ${webhook.organizationId}, ${webhook.url}, ${webhook.portfolioIds}::text[], true,
        ${webhook.secretCiphertext}, ${webhook.standardWebhooks}, ${now}, ${now})
      RETURNING ${WEBHOOK_COLUMNS}`;
    return isoDates(row);
  }

  /** Every webhook's sealed secret (deleted ones too: a redelivery may still sign with it), in id order. */
  async secretsAfter(afterId: string | null, take: number): Promise<{ id: string; ciphertext: string }[]> {
    const after = afterId === null ? Prisma.empty : Prisma.sql`WHERE w.id > ${afterId}`;
    return this.db.client.$queryRaw<{ id: string; ciphertext: string }[]>`
      SELECT w.id, w.secret_ciphertext AS ciphertext FROM webhooks w ${after} ORDER BY w.id LIMIT ${take}`;
  }

  /** Replaces each ciphertext that is still `from`; returns how many were replaced. */
  async replaceSecrets(changes: { id: string; from: string; to: string }[]): Promise<number> {
    return this.db.client.$executeRaw`
      UPDATE webhooks AS w SET secret_ciphertext = c.to_text
      FROM unnest(${changes.map((c) => c.id)}::text[], ${changes.map((c) => c.from)}::text[], ${changes.map((c) => c.to)}::text[]) AS c(id, from_text, to_text)
      WHERE w.id = c.id AND w.secret_ciphertext = c.from_text`;
  }

  /** One keyset page (limit + 1 rows, id order) of the organization's live webhooks. */
  async listLive(organizationId: string, afterId: string | null, take: number): Promise<WebhookView[]> {
    const after = afterId === null ? Prisma.empty : Prisma.sql`AND w.id > ${afterId}`;
    const rows = await this.db.client.$queryRaw<WebhookRow[]>`
      SELECT ${WEBHOOK_COLUMNS} FROM webhooks w
      WHERE w.organization_id = ${organizationId} AND w.deleted_at IS NULL ${after}
      ORDER BY w.id LIMIT ${take}`;
    return rows.map(isoDates);
  }

  /** A webhook that is not deleted. */
  async findLive(id: string): Promise<WebhookView | null> {
    const [row] = await this.db.client.$queryRaw<WebhookRow[]>`SELECT ${WEBHOOK_COLUMNS} FROM webhooks w WHERE w.id = ${id} AND w.deleted_at IS NULL`;
    return row ? isoDates(row) : null;
  }

  /** Applies the changes to a live webhook (its row locked until the transaction ends); null when there is none. */
  async update(tx: Tx, id: string, changes: WebhookChanges): Promise<WebhookView | null> {
    const sets = [Prisma.sql`updated_at = ${new Date()}`];
    if (changes.url !== undefined) sets.push(Prisma.sql`url = ${changes.url}`);
    if (changes.portfolioIds !== undefined) sets.push(Prisma.sql`portfolio_ids = ${changes.portfolioIds}::text[]`);
    if (changes.enabled !== undefined) sets.push(Prisma.sql`enabled = ${changes.enabled}`);
    if (changes.standardWebhooks !== undefined) sets.push(Prisma.sql`standard_webhooks = ${changes.standardWebhooks}`);
    const [row] = await tx.$queryRaw<WebhookRow[]>`
      UPDATE webhooks AS w SET ${Prisma.join(sets, ', ')}
      WHERE w.id = ${id} AND w.deleted_at IS NULL
      RETURNING ${WEBHOOK_COLUMNS}`;
    return row ? isoDates(row) : null;
  }

  /** Soft-deletes a live webhook (its row locked until the transaction ends); false when there is none. */
  async softDelete(tx: Tx, id: string): Promise<boolean> {
    const now = new Date();
    const deleted = await tx.$executeRaw`UPDATE webhooks SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${id} AND deleted_at IS NULL`;
    return deleted > 0;
  }

  /** The webhook's pending deliveries become cancelled (a queued job finds them so and sends nothing). */
  async cancelPendingDeliveries(tx: Tx, webhookId: string): Promise<number> {
    return tx.$executeRaw`
      UPDATE webhook_deliveries SET status = 'cancelled', completed_at = now(), next_attempt_at = NULL, updated_at = now()
      WHERE webhook_id = ${webhookId} AND status = 'pending'`;
  }

  /** One page (limit + 1 rows) of the webhook's deliveries, newest first, each with its attempts. */
  async deliveriesPage(webhookId: string, beforeId: string | null, take: number): Promise<WebhookDeliveryView[]> {
    const before = beforeId === null ? Prisma.empty : Prisma.sql`AND d.id < ${beforeId}`;
    const rows = await this.db.client.$queryRaw<DeliveryRow[]>`
      SELECT ${DELIVERY_COLUMNS}
      FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
      WHERE d.webhook_id = ${webhookId} ${before}
      ORDER BY d.id DESC LIMIT ${take}`;
    return rows.map(isoDates);
  }

  /**
   * Starts a new series of attempts for a finished delivery of a live, enabled webhook, in one
   * statement: pending again, series + 1 starting at the current attempt count, unqueued (the
   * dispatcher enqueues rows with `queued_at IS NULL AND status = 'pending'`), due now. The webhook
   * row is share-locked, so a concurrent disable or delete either waits for this and then cancels
   * the delivery, or commits first and this changes nothing. Null when nothing was changed.
   */
  async redeliver(id: string): Promise<WebhookDeliveryView | null> {
    const [row] = await this.db.client.$queryRaw<DeliveryRow[]>`
      WITH live AS (
        SELECT w.id FROM webhooks w JOIN webhook_deliveries d0 ON d0.webhook_id = w.id
        WHERE d0.id = ${id} AND w.enabled AND w.deleted_at IS NULL
        FOR SHARE OF w
      ), d AS (
        UPDATE webhook_deliveries dl
        SET status = 'pending', series = dl.series + 1, series_start = dl.attempt_count, queued_at = NULL, completed_at = NULL,
            next_attempt_at = now(), updated_at = now()
        FROM live
        WHERE dl.id = ${id} AND dl.webhook_id = live.id AND dl.status = ANY(${FINISHED}::text[])
        RETURNING dl.*
      )
      SELECT ${DELIVERY_COLUMNS} FROM d JOIN outbox_events e ON e.id = d.event_id`;
    return row ? isoDates(row) : null;
  }

  /** The delivery's status and its webhook's state, to say why a redelivery changed nothing; null when unknown. */
  async redeliveryState(id: string): Promise<RedeliveryState | null> {
    const [row] = await this.db.client.$queryRaw<RedeliveryState[]>`
      SELECT d.status, w.enabled AS "webhookEnabled", (w.deleted_at IS NOT NULL) AS "webhookDeleted"
      FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.id = ${id}`;
    return row ?? null;
  }
}
