import { WebhookEventType } from '@dc/contracts';
import { Prisma } from '@dc/database';

/**
 * The SQL of `outbox_events`. An event is written by the statement, or in the transaction, of the
 * change that causes it; whether it is written at all is eventEmission's decision (event-emission.ts).
 */

/** Who an event would come from: the portfolio and its organization. */
export interface EventSource {
  demo: boolean;
  organizationStatus: string;
  sandbox: boolean;
}

/**
 * The event source of portfolio `p` as one column, `eventSource` (an EventSource, read as JSON), for
 * a statement that reads `portfolios p JOIN organizations o ON o.id = p.organization_id`.
 */
export const EVENT_SOURCE_COLUMN = Prisma.sql`json_build_object('demo', p.demo, 'organizationStatus', o.status, 'sandbox', o.sandbox) AS "eventSource"`;

/** One outbox row to write. */
export interface OutboxInsert {
  id: string;
  organizationId: string;
  portfolioId: string;
  type: WebhookEventType;
  livemode: boolean;
  /** The event's `data`: the shape of the equivalent API resource. */
  payload: unknown;
  /** The API request that caused it: carried into the deliveries' jobs, so the dispatcher's log lines name it (docs/adr/0032). */
  requestId: string | null;
}

/**
 * `INSERT INTO outbox_events … SELECT … FROM <source>`, for a CTE of the statement that writes the
 * change: one row per row the change's own CTE (`source`) returns, so the event exists exactly when
 * the change does, without a transaction around them. The payload is the JSON text as
 * JSON.stringify writes it (the column keeps it byte for byte).
 */
export function outboxRowFromSql(source: Prisma.Sql, event: OutboxInsert): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload, request_id)
    SELECT ${event.id}::text, ${event.organizationId}::text, ${event.portfolioId}::text, ${event.type}::text,
      ${event.livemode}::boolean, ${JSON.stringify(event.payload)}::json, ${event.requestId}::text
    FROM ${source}`;
}

/** One outbox row on its own, for a change whose row the transaction wrote before. */
export function outboxRowSql(event: OutboxInsert): Prisma.Sql {
  return outboxRowFromSql(Prisma.sql`(SELECT 1) AS one`, event);
}
