import { Injectable } from '@nestjs/common';
import type { AttemptErrorClass } from '@dc/webhooks';
import { Database, Prisma } from '@dc/database';

/** A job's request to make the next attempt of its delivery's series. */
export interface ClaimRequest {
  deliveryId: string;
  series: number;
}

/**
 * What the database answered for one claim:
 * - `send`: the attempt is claimed (attempt_count incremented); send it;
 * - `early`: the delivery's next attempt is not due yet (a job that came back before its time,
 *   e.g. after a crash between recording a failure and delaying the job); nothing claimed;
 * - `cancelled`: the webhook was disabled or deleted, or the organization suspended, or the event is
 *   no longer one the webhook receives: the delivery is now cancelled, nothing sent;
 * - `exhausted`: the series already had all its attempts (some were lost to a crash): now failed;
 * - `none`: the delivery is not pending in this series (finished, or redelivered since): the job is
 *   a duplicate or outdated and ends without sending.
 */
export type ClaimResult =
  | { kind: 'send'; attempt: ClaimedAttempt }
  | { kind: 'early'; dueInMs: number }
  | { kind: 'cancelled' | 'exhausted' | 'none' };

export interface ClaimedAttempt {
  deliveryId: string;
  webhookId: string;
  series: number;
  /** This attempt's number: the delivery's attempt_count once claimed (it counts across series). */
  number: number;
  seriesStart: number;
  url: string;
  secretCiphertext: string;
  /** The secret a rotation replaced, while its overlap lasts (expired ones are never read): signs beside the current one (docs/adr/0048). */
  previousSecretCiphertext: string | null;
  standardWebhooks: boolean;
  /** The outbox event's id, the body's `eventId`. */
  eventId: string;
  type: string;
  livemode: boolean;
  /** When the event was written, as the API writes instants (`toISOString()` form, UTC, milliseconds). */
  eventCreatedAt: string;
  /** The event's `data`, exactly as api-core serialised it. */
  payload: string;
}

/** One attempt's outcome and what it means for the delivery. */
export interface AttemptRecord {
  deliveryId: string;
  /** The delivery's webhook, whose failing_since the outcome sets or clears. */
  webhookId: string;
  series: number;
  number: number;
  statusCode: number | null;
  error: string | null;
  errorClass: AttemptErrorClass | null;
  durationMs: number;
  address: string | null;
  outcome: 'succeeded' | 'failed' | 'retry';
  /** For `retry`: when the next attempt is due, from now. */
  retryInMs: number | null;
}

interface ClaimRow {
  id: string;
  status: string | null;
  number: number | null;
  series: number;
  series_start: number;
  due_in_ms: number | null;
  webhook_id: string;
  url: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  standard_webhooks: boolean;
  event_id: string;
  type: string;
  livemode: boolean;
  event_created_at: string;
  payload: string;
}

/** to_char's pattern for an instant as `Date.prototype.toISOString()` writes it (timestamptz(3) has milliseconds). */
const ISO_INSTANT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

/** The error text of an attempt found claimed but never recorded (the dispatcher stopped during it). */
export const INTERRUPTED_ATTEMPT_ERROR = 'the dispatcher stopped during this attempt; whether it reached the receiver is unknown';

/**
 * The delivery worker's SQL: claiming attempts and recording their outcomes, each one statement for
 * any number of deliveries (the worker batches the jobs running at the same moment), run as named
 * prepared statements. The database, not BullMQ, is the authority on how many attempts a series has
 * had and on whether a delivery is still pending (docs/adr/0020).
 */
@Injectable()
export class DeliveryRepository {
  constructor(private readonly database: Database) {}

  /**
   * Claims the next attempt of each requested delivery, in one statement. A delivery is claimed
   * when it is pending in the job's series, due, its webhook live, and its series has attempts
   * left: attempt_count + 1 and next_attempt_at cleared. A claimed attempt that was never recorded
   * (next_attempt_at still cleared: the process died during it) is recorded now as interrupted; it
   * counts toward the series, so a crash can never lead to one attempt too many.
   */
  async claim(requests: ClaimRequest[], maxAttempts: number): Promise<ClaimResult[]> {
    const sorted = byDeliveryId(requests);
    const rows = await this.database.prepared<ClaimRow>(Prisma.sql`
      WITH req AS (
        SELECT * FROM unnest(${sorted.map((r) => r.deliveryId)}::text[], ${sorted.map((r) => r.series)}::int[]) AS r(id, series)
      ),
      cur AS (
        SELECT d.id, d.series, d.attempt_count, d.series_start, d.next_attempt_at,
               w.id AS webhook_id, w.url, w.secret_ciphertext, w.standard_webhooks, d.event_id,
               CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_ciphertext END AS previous_secret_ciphertext,
               (w.enabled AND w.deleted_at IS NULL AND o.status = 'active' AND NOT coalesce(p.demo, false)
                 AND (cardinality(w.portfolio_ids) = 0 OR e.portfolio_id = ANY (w.portfolio_ids))) AS live,
               (d.next_attempt_at > now() + interval '1 second') IS TRUE AS early,
               e.type, e.livemode, to_char(e.created_at AT TIME ZONE 'UTC', ${ISO_INSTANT}) AS event_created_at, e.payload::text AS payload
        FROM req
        JOIN webhook_deliveries d ON d.id = req.id AND d.series = req.series
        JOIN webhooks w ON w.id = d.webhook_id
        JOIN outbox_events e ON e.id = d.event_id
        JOIN organizations o ON o.id = w.organization_id
        LEFT JOIN portfolios p ON p.id = e.portfolio_id
        WHERE d.status = 'pending'
        FOR UPDATE OF d
      ),
      lost AS (
        INSERT INTO webhook_delivery_attempts (id, delivery_id, number, series, status_code, error, error_class, duration_ms, address)
        SELECT dc_derived_id('att', id, id, attempt_count::text), id, attempt_count, series, NULL, ${INTERRUPTED_ATTEMPT_ERROR}, 'interrupted', 0, NULL
        FROM cur
        WHERE next_attempt_at IS NULL AND attempt_count > series_start
        ON CONFLICT (id) DO NOTHING
      ),
      upd AS (
        UPDATE webhook_deliveries d SET
          attempt_count = d.attempt_count + CASE WHEN cur.live AND cur.attempt_count - cur.series_start < ${maxAttempts}::int THEN 1 ELSE 0 END,
          status = CASE WHEN NOT cur.live THEN 'cancelled' WHEN cur.attempt_count - cur.series_start >= ${maxAttempts}::int THEN 'failed' ELSE 'pending' END,
          completed_at = CASE WHEN cur.live AND cur.attempt_count - cur.series_start < ${maxAttempts}::int THEN NULL ELSE now() END,
          next_attempt_at = NULL,
          updated_at = now()
        FROM cur
        WHERE d.id = cur.id AND NOT cur.early
        RETURNING d.id, d.status, d.attempt_count AS number, cur.series, cur.series_start, NULL::int AS due_in_ms,
                  cur.webhook_id, cur.url, cur.secret_ciphertext, cur.previous_secret_ciphertext, cur.standard_webhooks, cur.event_id,
                  cur.type, cur.livemode, cur.event_created_at, cur.payload
      )
      SELECT * FROM upd
      UNION ALL
      SELECT id, NULL, NULL, series, series_start, ceil(extract(epoch FROM next_attempt_at - now()) * 1000)::int,
             webhook_id, url, secret_ciphertext, previous_secret_ciphertext, standard_webhooks, event_id, type, livemode, event_created_at, payload
      FROM cur WHERE early`);
    const byId = new Map(rows.map((row) => [`${row.id}\n${row.series}`, row]));
    return requests.map((request) => claimResult(byId.get(`${request.deliveryId}\n${request.series}`), maxAttempts));
  }

  /**
   * Records attempts, in one statement: one attempt row each, and the delivery's new state —
   * succeeded or failed (completed now), or still pending with its next attempt due. The delivery
   * changes only while it is still pending at this attempt of this series (an operator may have
   * cancelled it meanwhile); answers, per record, whether it did.
   *
   * The same statement keeps each enabled webhook's failing_since (docs/adr/0048): set to now (the
   * failed attempt's created_at) when an attempt failed and it was null, cleared when one
   * succeeded (any success among the batch's attempts to that webhook clears it). Only a change
   * writes, so the attempts of a healthy webhook, or of one already failing, write no webhooks row.
   * A webhook row locked at that moment (an operator's change, a recovery) is skipped rather
   * than waited for: no lock order to keep with api-core's transactions, and the next attempt's
   * record makes the change instead.
   */
  async record(records: AttemptRecord[]): Promise<boolean[]> {
    const sorted = byDeliveryId(records);
    const health = webhookHealth(records);
    const rows = await this.database.prepared<{ id: string; number: number }>(Prisma.sql`
      WITH r AS (
        SELECT * FROM unnest(
          ${sorted.map((r) => r.deliveryId)}::text[],
          ${sorted.map((r) => r.number)}::int[], ${sorted.map((r) => r.series)}::int[],
          ${sorted.map((r) => r.statusCode)}::int[], ${sorted.map((r) => r.error)}::text[],
          ${sorted.map((r) => r.errorClass)}::text[], ${sorted.map((r) => r.durationMs)}::int[],
          ${sorted.map((r) => r.address)}::text[], ${sorted.map((r) => r.outcome)}::text[],
          ${sorted.map((r) => r.retryInMs)}::int[]
        ) AS r(delivery_id, number, series, status_code, error, error_class, duration_ms, address, outcome, retry_in_ms)
      ),
      attempts AS (
        INSERT INTO webhook_delivery_attempts (id, delivery_id, number, series, status_code, error, error_class, duration_ms, address)
        SELECT dc_derived_id('att', delivery_id, delivery_id, number::text), delivery_id, number, series, status_code, error, error_class, duration_ms, address FROM r
        ON CONFLICT (id) DO NOTHING
      ),
      turned AS (
        SELECT w.id, h.succeeded
        FROM unnest(${health.map((h) => h.webhookId)}::text[], ${health.map((h) => h.succeeded)}::bool[]) AS h(webhook_id, succeeded)
        JOIN webhooks w ON w.id = h.webhook_id
        -- only a change: a failure while null, a success while set
        WHERE w.enabled AND w.deleted_at IS NULL AND (w.failing_since IS NULL) <> h.succeeded
        FOR NO KEY UPDATE OF w SKIP LOCKED
      ),
      failing AS (
        UPDATE webhooks w SET failing_since = CASE WHEN turned.succeeded THEN NULL ELSE now() END
        FROM turned WHERE w.id = turned.id
      )
      UPDATE webhook_deliveries d SET
        status = CASE WHEN r.outcome = 'retry' THEN 'pending' ELSE r.outcome END,
        completed_at = CASE WHEN r.outcome = 'retry' THEN NULL ELSE now() END,
        next_attempt_at = CASE WHEN r.outcome = 'retry' THEN now() + r.retry_in_ms * interval '1 millisecond' END,
        updated_at = now()
      FROM r
      WHERE d.id = r.delivery_id AND d.status = 'pending' AND d.series = r.series AND d.attempt_count = r.number
      RETURNING d.id, d.attempt_count AS number`);
    const applied = new Set(rows.map((row) => `${row.id}\n${row.number}`));
    return records.map((r) => applied.has(`${r.deliveryId}\n${r.number}`));
  }
}

/**
 * Per webhook of a batch of records (in webhook id order): whether any of its attempts succeeded.
 * A success clears the webhook's failing_since, failures alone set it (docs/adr/0048).
 */
export function webhookHealth(records: readonly Pick<AttemptRecord, 'webhookId' | 'outcome'>[]): { webhookId: string; succeeded: boolean }[] {
  const succeeded = new Map<string, boolean>();
  for (const r of records) succeeded.set(r.webhookId, (succeeded.get(r.webhookId) ?? false) || r.outcome === 'succeeded');
  return [...succeeded.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([webhookId, any]) => ({ webhookId, succeeded: any }));
}

/**
 * The batch in delivery id order, so that concurrent batches (whose plans walk the input in order)
 * lock shared rows in the same order rather than deadlocking on each other.
 */
function byDeliveryId<T extends { deliveryId: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : a.deliveryId > b.deliveryId ? 1 : 0));
}

function claimResult(row: ClaimRow | undefined, maxAttempts: number): ClaimResult {
  if (!row) return { kind: 'none' };
  if (row.due_in_ms !== null) return { kind: 'early', dueInMs: row.due_in_ms };
  if (row.status === 'cancelled') return { kind: 'cancelled' };
  if (row.status === 'failed') return { kind: 'exhausted' };
  if (row.status !== 'pending' || row.number === null || row.number - row.series_start > maxAttempts) return { kind: 'none' };
  return {
    kind: 'send',
    attempt: {
      deliveryId: row.id,
      webhookId: row.webhook_id,
      series: row.series,
      number: row.number,
      seriesStart: row.series_start,
      url: row.url,
      secretCiphertext: row.secret_ciphertext,
      previousSecretCiphertext: row.previous_secret_ciphertext,
      standardWebhooks: row.standard_webhooks,
      eventId: row.event_id,
      type: row.type,
      livemode: row.livemode,
      eventCreatedAt: row.event_created_at,
      payload: row.payload,
    },
  };
}
