import { Injectable } from '@nestjs/common';
import { WebhookEventType } from '@dc/contracts';
import type { Tx } from '@dc/database';
import { currentRequestId } from '@dc/observability';
import { EventSource, OutboxRepository } from './outbox.repository';

export interface DomainEvent {
  organizationId: string;
  portfolioId: string;
  type: WebhookEventType;
  /** The event's `data`: the shape of the equivalent API resource. */
  payload: unknown;
}

/**
 * Spec: Events, Registration rules 3 — demo portfolios and suspended organizations emit nothing
 * (nor does a portfolio that no longer exists).
 */
export function emitsEvents(source: EventSource | null): source is EventSource {
  return source !== null && !source.demo && source.organizationStatus === 'active';
}

/** How an event whose change writes it in its own statement is recorded; null when its source emits nothing (as in EventsService.record). */
export interface EventEmission {
  organizationId: string;
  livemode: boolean;
  requestId: string | null;
}

export function eventEmission(source: EventSource, organizationId: string): EventEmission | null {
  if (!emitsEvents(source)) return null;
  return { organizationId, livemode: !source.sandbox, requestId: currentRequestId() ?? null };
}

/**
 * Records an event in `outbox_events` in the same transaction as the payment/promise/call that
 * causes it (so an event exists exactly when its change commits); the webhook dispatcher relays it later. Decides whether
 * the event is emitted at all (emitsEvents) and its livemode (a sandbox organization's events are
 * test events); the repository only stores it.
 */
@Injectable()
export class EventsService {
  constructor(private readonly outbox: OutboxRepository) {}

  async record(tx: Tx, event: DomainEvent): Promise<void> {
    const source = await this.outbox.eventSource(tx, event.portfolioId);
    if (!emitsEvents(source)) return;
    await this.outbox.insert(tx, { ...event, livemode: !source.sandbox });
  }
}
