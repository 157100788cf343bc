import { currentRequestId } from '@dc/observability';
import type { EventSource } from './outbox.repository';

/**
 * Spec: Events, Registration rules 3 — demo portfolios and suspended organizations emit nothing
 * (nor does a portfolio that no longer exists).
 */
export function emitsEvents(source: EventSource | null): source is EventSource {
  return source !== null && !source.demo && source.organizationStatus === 'active';
}

/**
 * How an event is recorded in `outbox_events` by the statement (or transaction) of the change that
 * causes it, so an event exists exactly when its change commits; the webhook dispatcher relays it
 * later. A sandbox organization's events are test events (livemode false); the API request that
 * caused it is kept for the deliveries' logs (docs/adr/0032).
 */
export interface EventEmission {
  organizationId: string;
  livemode: boolean;
  requestId: string | null;
}

/** The emission of an event of `source`'s portfolio; null when it emits nothing (emitsEvents). */
export function eventEmission(source: EventSource, organizationId: string): EventEmission | null {
  if (!emitsEvents(source)) return null;
  return { organizationId, livemode: !source.sandbox, requestId: currentRequestId() ?? null };
}
