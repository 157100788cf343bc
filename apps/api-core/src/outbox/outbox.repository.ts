import { Injectable } from '@nestjs/common';
import { WebhookEventType } from '@dc/contracts';
import { newId, Prisma, Tx } from '@dc/database';
import { currentRequestId } from '@dc/observability';

/** Who an event would come from: the portfolio and its organization. */
export interface EventSource {
  demo: boolean;
  organizationStatus: string;
  sandbox: boolean;
}

export interface OutboxRow {
  organizationId: string;
  portfolioId: string;
  type: WebhookEventType;
  livemode: boolean;
  payload: unknown;
}

/**
 * The event source of portfolio `p` as columns (EventSource's fields), for a statement that reads
 * `portfolios p JOIN organizations o ON o.id = p.organization_id`.
 */
export const EVENT_SOURCE_COLUMNS = Prisma.sql`p.demo, o.status AS "organizationStatus", o.sandbox`;

/** An outbox row written by the statement of its change (outboxRowFromSql). */
export interface OutboxInsert extends OutboxRow {
  id: string;
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

/** The SQL of `outbox_events`; which events are written is decided by EventsService. */
@Injectable()
export class OutboxRepository {
  async eventSource(tx: Tx, portfolioId: string): Promise<EventSource | null> {
    const rows = await tx.$queryRaw<{ demo: boolean; status: string; sandbox: boolean }[]>`
      SELECT p.demo, o.status, o.sandbox
      FROM portfolios p JOIN organizations o ON o.id = p.organization_id
      WHERE p.id = ${portfolioId}`;
    const source = rows[0];
    return source ? { demo: source.demo, organizationStatus: source.status, sandbox: source.sandbox } : null;
  }

  async insert(tx: Tx, event: OutboxRow): Promise<void> {
    await tx.outboxEvent.create({
      data: {
        id: newId('evt'),
        organizationId: event.organizationId,
        portfolioId: event.portfolioId,
        type: event.type,
        livemode: event.livemode,
        payload: event.payload as Prisma.InputJsonValue,
        // Carried into the deliveries' jobs, so the dispatcher's log lines name the request (docs/adr/0032).
        requestId: currentRequestId() ?? null,
      },
    });
  }
}
