import { Injectable } from '@nestjs/common';
import type { DeliveryJob } from '@dc/contracts';
import { Database, Prisma } from '@dc/database';

export interface RelayedBatch {
  /** Outbox events taken (and marked relayed). */
  events: number;
  /** Deliveries created for them. */
  deliveries: number;
}

/**
 * Held by each relay transaction from its first statement to its commit (any constant shared by all
 * replicas): batches commit one at a time, in the order of their feed positions.
 */
const RELAY_LOCK = 'webhook-dispatcher:relay';

/**
 * The relay's SQL: outbox events → deliveries (one transaction per batch), and pending deliveries →
 * queue marks. Every statement is set-based: a batch costs the same number of statements whatever
 * its size (docs/adr/0020).
 */
@Injectable()
export class RelayRepository {
  constructor(private readonly database: Database) {}

  /**
   * One transaction, three statements: RELAY_LOCK, then up to `limit` unrelayed events (oldest
   * first, `FOR UPDATE SKIP LOCKED`) with the webhooks each matches, then one delivery per match (a
   * duplicate pair is skipped) while the events are marked relayed and given their feed positions
   * in id order (an event that has one keeps it).
   *
   * A webhook matches an event when it is of the event's organization, enabled and not deleted,
   * registered no later than the event was written, and its portfolio list is empty or holds the
   * event's portfolio; the organization must be active and the portfolio not demo (api-core does
   * not write events for those; checked again here in case that changed since). An event without
   * a match is marked relayed all the same (rows written before webhooks existed end here).
   *
   * The events get their feed positions here (docs/adr/0048): the transaction first takes
   * RELAY_LOCK, so batches commit one after the other and positions only grow in commit order — an
   * event that commits late gets a later position, never one behind what a client has read. The
   * same transaction creates the deliveries, so a delivery's eventId is always listed already.
   */
  async relayBatch(limit: number): Promise<RelayedBatch> {
    return this.database.transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${RELAY_LOCK}))`;
      const matches = await tx.$queryRaw<{ eventId: string; webhookId: string | null }[]>`
        WITH ev AS (
          SELECT id, organization_id, portfolio_id, created_at
          FROM outbox_events
          WHERE relayed_at IS NULL
          ORDER BY id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        SELECT ev.id AS "eventId", m.id AS "webhookId"
        FROM ev
        LEFT JOIN LATERAL (
          SELECT w.id
          FROM webhooks w
          JOIN organizations o ON o.id = w.organization_id AND o.status = 'active'
          JOIN portfolios p ON p.id = ev.portfolio_id AND NOT p.demo
          WHERE w.organization_id = ev.organization_id
            AND w.deleted_at IS NULL AND w.enabled
            AND w.created_at <= ev.created_at
            AND (cardinality(w.portfolio_ids) = 0 OR ev.portfolio_id = ANY (w.portfolio_ids))
        ) m ON true
        ORDER BY ev.id, m.id`;
      if (matches.length === 0) return { events: 0, deliveries: 0 };
      const eventIds = [...new Set(matches.map((m) => m.eventId))];
      const pairs = matches.filter((m): m is { eventId: string; webhookId: string } => m.webhookId !== null);
      const [{ inserted }] = await tx.$queryRaw<{ inserted: number }[]>`
        WITH ins AS (
          INSERT INTO webhook_deliveries (id, webhook_id, event_id)
          SELECT dc_derived_id('dlv', p.event_id, p.webhook_id, p.event_id), p.webhook_id, p.event_id
          FROM unnest(${pairs.map((p) => p.webhookId)}::text[], ${pairs.map((p) => p.eventId)}::text[]) AS p(webhook_id, event_id)
          ON CONFLICT (id) DO NOTHING
          RETURNING 1
        ), positions AS (
          SELECT id, nextval('outbox_events_feed_position_seq') AS feed_position
          FROM (SELECT id FROM unnest(${eventIds}::text[]) AS id ORDER BY id) sorted
        ), relayed AS (
          UPDATE outbox_events e SET relayed_at = now(), feed_position = coalesce(e.feed_position, positions.feed_position)
          FROM positions WHERE e.id = positions.id
        )
        SELECT count(*)::int AS inserted FROM ins`;
      return { events: eventIds.length, deliveries: inserted };
    });
  }

  /**
   * One transaction: marks up to `limit` pending deliveries that have no job yet as queued (oldest
   * first, `FOR UPDATE SKIP LOCKED`) and runs `enqueue` with them before committing, so a failed
   * enqueue leaves them unqueued for the next pass, and a crash after the jobs were added is
   * harmless (the job ids are deterministic: adding one that exists is a no-op).
   */
  async markQueued(limit: number, enqueue: (jobs: DeliveryJob[]) => Promise<void>): Promise<number> {
    return this.database.transaction(async (tx) => {
      const jobs = await tx.$queryRaw<DeliveryJob[]>`
        UPDATE webhook_deliveries d SET queued_at = now()
        FROM (
          SELECT id FROM webhook_deliveries
          WHERE queued_at IS NULL AND status = 'pending'
          ORDER BY id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) todo
        WHERE d.id = todo.id
        RETURNING d.id AS "deliveryId", d.webhook_id AS "webhookId", d.series,
          (SELECT w.organization_id FROM webhooks w WHERE w.id = d.webhook_id) AS "organizationId",
          (SELECT e.request_id FROM outbox_events e WHERE e.id = d.event_id) AS "requestId"`;
      if (jobs.length > 0) await enqueue(jobs);
      return jobs.length;
    });
  }

  /** Seconds since the oldest unrelayed event was written (0 when there is none). */
  async relayLagSeconds(): Promise<number> {
    const [row] = await this.database.prepared<{ lag: number }>(Prisma.sql`
      SELECT greatest(0, extract(epoch FROM now() - created_at))::float8 AS lag
      FROM outbox_events WHERE relayed_at IS NULL ORDER BY id LIMIT 1`);
    return row?.lag ?? 0;
  }
}
