import { Injectable } from '@nestjs/common';
import { WebhookEventType } from '@dc/contracts';
import { newId, Prisma } from '@dc/database';

/** A Prisma transaction client: outbox rows are only ever written inside the change's transaction. */
export type Tx = Prisma.TransactionClient;

export interface OutboxEventInput {
  organizationId: string;
  portfolioId: string;
  type: WebhookEventType;
  /** The event's `data`: the shape of the equivalent API resource. */
  payload: unknown;
}

/**
 * Records an event in `outbox_events` in the same transaction as the payment/promise/call that
 * causes it (ARCHITECTURE.md decision 3); the webhook dispatcher relays it later. Demo portfolios
 * and suspended organizations emit nothing (spec: Events, Registration rules 3).
 */
@Injectable()
export class OutboxWriter {
  async append(tx: Tx, event: OutboxEventInput): Promise<void> {
    const rows = await tx.$queryRaw<{ demo: boolean; status: string; sandbox: boolean }[]>`
      SELECT p.demo, o.status, o.sandbox
      FROM portfolios p JOIN organizations o ON o.id = p.organization_id
      WHERE p.id = ${event.portfolioId}`;
    const source = rows[0];
    if (!source || source.demo || source.status !== 'active') return;
    await tx.outboxEvent.create({
      data: {
        id: newId('evt'),
        organizationId: event.organizationId,
        portfolioId: event.portfolioId,
        type: event.type,
        livemode: !source.sandbox,
        payload: event.payload as Prisma.InputJsonValue,
      },
    });
  }
}
