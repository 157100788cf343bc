import { Injectable } from '@nestjs/common';
import { OPERATOR_DISABLED_REASON, WebhookDeliveryView, WebhookView } from '@dc/contracts';
import { Database, isoDates, newId, Prisma, Stored, Tx } from '@dc/database';
import { cancelPendingDeliveriesSql } from '@dc/webhooks';

/** A webhook as its SQL returns it: the WebhookView, timestamps still Date. */
type WebhookRow = Stored<WebhookView, 'failingSince' | 'disabledAt' | 'previousSecretExpiresAt' | 'createdAt' | 'updatedAt'>;

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

/**
 * webhooks columns named as WebhookView's fields, in its order; the secrets never leave the table.
 * A previous secret's expiry shows only while it is in the future (signing ignores it after).
 */
const WEBHOOK_COLUMNS = Prisma.sql`
  w.id, w.organization_id AS "organizationId", w.url, w.portfolio_ids AS "portfolioIds", w.enabled,
  w.failing_since AS "failingSince", w.disabled_at AS "disabledAt", w.disabled_reason AS "disabledReason",
  w.standard_webhooks AS "standardWebhooks",
  CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_expires_at END AS "previousSecretExpiresAt",
  w.created_at AS "createdAt", w.updated_at AS "updatedAt"`;

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

/**
 * A new series of attempts for the delivery row `dl` (redelivery and recovery alike): pending again,
 * series + 1 starting at the current attempt count, unqueued (the dispatcher enqueues rows with
 * `queued_at IS NULL AND status = 'pending'` within a relay interval), due now.
 */
const NEW_SERIES = Prisma.sql`
  status = 'pending', series = dl.series + 1, series_start = dl.attempt_count, queued_at = NULL, completed_at = NULL,
  next_attempt_at = now(), updated_at = now()`;

/** The shared cancellation (libs/webhooks), for one webhook id given as $1. */
const CANCEL_PENDING_OF_ONE = cancelPendingDeliveriesSql('$1');

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

  /**
   * Every webhook's sealed secret (deleted ones too: a redelivery may still sign with it), with its
   * previous secret while a rotation's overlap lasts (null otherwise), in id order.
   */
  async secretsAfter(afterId: string | null, take: number): Promise<{ id: string; ciphertext: string; previousCiphertext: string | null }[]> {
    const after = afterId === null ? Prisma.empty : Prisma.sql`WHERE w.id > ${afterId}`;
    return this.db.client.$queryRaw<{ id: string; ciphertext: string; previousCiphertext: string | null }[]>`
      SELECT w.id, w.secret_ciphertext AS ciphertext,
             CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_ciphertext END AS "previousCiphertext"
      FROM webhooks w ${after} ORDER BY w.id LIMIT ${take}`;
  }

  /** Replaces each ciphertext that is still `from`; returns how many were replaced. */
  async replaceSecrets(changes: { id: string; from: string; to: string }[]): Promise<number> {
    return this.db.client.$executeRaw`
      UPDATE webhooks AS w SET secret_ciphertext = c.to_text
      FROM unnest(${changes.map((c) => c.id)}::text[], ${changes.map((c) => c.from)}::text[], ${changes.map((c) => c.to)}::text[]) AS c(id, from_text, to_text)
      WHERE w.id = c.id AND w.secret_ciphertext = c.from_text`;
  }

  /** Replaces each previous secret's ciphertext that is still `from` (a rotation meanwhile keeps its own); returns how many were replaced. */
  async replacePreviousSecrets(changes: { id: string; from: string; to: string }[]): Promise<number> {
    return this.db.client.$executeRaw`
      UPDATE webhooks AS w SET previous_secret_ciphertext = c.to_text
      FROM unnest(${changes.map((c) => c.id)}::text[], ${changes.map((c) => c.from)}::text[], ${changes.map((c) => c.to)}::text[]) AS c(id, from_text, to_text)
      WHERE w.id = c.id AND w.previous_secret_ciphertext = c.from_text`;
  }

  /**
   * Secret rotation of a live webhook, one statement (docs/adr/0048): the new ciphertext becomes
   * current; the current one becomes the previous secret until now + overlapSeconds, replacing any
   * previous one still in its overlap; with overlap 0 no previous secret is kept. Null when there
   * is no live webhook `id`.
   */
  async rotateSecret(id: string, ciphertext: string, overlapSeconds: number): Promise<WebhookView | null> {
    const [row] = await this.db.client.$queryRaw<WebhookRow[]>`
      UPDATE webhooks AS w SET
        previous_secret_ciphertext = CASE WHEN ${overlapSeconds}::int > 0 THEN w.secret_ciphertext END,
        previous_secret_expires_at = CASE WHEN ${overlapSeconds}::int > 0 THEN now() + make_interval(secs => ${overlapSeconds}::int) END,
        secret_ciphertext = ${ciphertext},
        updated_at = now()
      WHERE w.id = ${id} AND w.deleted_at IS NULL
      RETURNING ${WEBHOOK_COLUMNS}`;
    return row ? isoDates(row) : null;
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
    const now = new Date();
    const sets = [Prisma.sql`updated_at = ${now}`];
    if (changes.url !== undefined) sets.push(Prisma.sql`url = ${changes.url}`);
    if (changes.portfolioIds !== undefined) sets.push(Prisma.sql`portfolio_ids = ${changes.portfolioIds}::text[]`);
    // Enabling clears the failure count and the last disabling; disabling an enabled webhook
    // records when and why (one already disabled keeps its own time and reason). docs/adr/0048.
    if (changes.enabled === true) sets.push(Prisma.sql`enabled = true, failing_since = NULL, disabled_at = NULL, disabled_reason = NULL`);
    if (changes.enabled === false) {
      sets.push(Prisma.sql`enabled = false,
        disabled_at = CASE WHEN w.enabled OR w.disabled_at IS NULL THEN ${now}::timestamptz ELSE w.disabled_at END,
        disabled_reason = CASE WHEN w.enabled OR w.disabled_reason IS NULL THEN ${OPERATOR_DISABLED_REASON} ELSE w.disabled_reason END`);
    }
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
    return tx.$executeRawUnsafe(CANCEL_PENDING_OF_ONE, webhookId);
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
        UPDATE webhook_deliveries dl SET ${NEW_SERIES}
        FROM live
        WHERE dl.id = ${id} AND dl.webhook_id = live.id AND dl.status = ANY(${FINISHED}::text[])
        RETURNING dl.*
      )
      SELECT ${DELIVERY_COLUMNS} FROM d JOIN outbox_events e ON e.id = d.event_id`;
    return row ? isoDates(row) : null;
  }

  /**
   * Recovery (docs/adr/0048): a new series, as `redeliver` starts one, for every delivery of a live,
   * enabled webhook that ended failed with completed_at in [since, until) — one statement whatever
   * their number, through the partial index webhook_deliveries_failed_idx. The webhook row is
   * share-locked as in `redeliver`. Answers how many, or null when the webhook is not live and
   * enabled (nothing changed).
   */
  async recoverFailed(webhookId: string, since: Date, until: Date): Promise<number | null> {
    const [row] = await this.db.client.$queryRaw<{ live: boolean; recovered: number }[]>`
      WITH live AS (
        SELECT w.id FROM webhooks w
        WHERE w.id = ${webhookId} AND w.enabled AND w.deleted_at IS NULL
        FOR SHARE
      ), d AS (
        UPDATE webhook_deliveries dl SET ${NEW_SERIES}
        FROM live
        WHERE dl.webhook_id = ${webhookId} AND dl.status = 'failed'
          AND dl.completed_at >= ${since}::timestamptz AND dl.completed_at < ${until}::timestamptz
        RETURNING 1
      )
      SELECT EXISTS (SELECT 1 FROM live) AS live, (SELECT count(*) FROM d)::int AS recovered`;
    return row.live ? row.recovered : null;
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
