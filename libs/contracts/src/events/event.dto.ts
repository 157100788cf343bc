import { IsOptional, IsString, Matches } from 'class-validator';
import { ListQueryDto } from '../common/list-query.dto';
import { CommaListOf, IdFilter, InstantBound } from '../common/query-fields';
import type { CallListItemView } from '../calls/call.dto';
import type { PaymentView } from '../payments/payment.view';
import type { PromiseView } from '../promises/promise.dto';
import { WebhookEventType } from '../webhook-events';

/** Every event kind, in the order the documentation lists them. */
export const EVENT_TYPES: readonly WebhookEventType[] = Object.values(WebhookEventType);

/** How many days an event stays listed (and its deliveries in the delivery log): WEBHOOK_RETENTION_DAYS's default. */
export const EVENT_RETENTION_DAYS = 30;

/** What every item of GET /v1/events carries beside its kind and data. */
interface EventViewBase {
  id: string;
  createdAt: string;
  livemode: boolean;
  portfolioId: string;
}

/** payment.registered: `data` is the payment. */
export interface PaymentRegisteredEventView extends EventViewBase {
  type: 'payment.registered';
  data: PaymentView;
}

/** promise.created: `data` is the promise list item. */
export interface PromiseCreatedEventView extends EventViewBase {
  type: 'promise.created';
  data: PromiseView;
}

/** call.completed: `data` is the call list item (never an analysis). */
export interface CallCompletedEventView extends EventViewBase {
  type: 'call.completed';
  data: CallListItemView;
}

/**
 * An item of GET /v1/events (release 1.8.0): an event as the platform recorded it, whether or not a
 * webhook received it. `data` is exactly the `data` its webhook deliveries carry (after an erasure,
 * the scrubbed copy); `id` is the `eventId` of those deliveries. Items keep the order id, type,
 * createdAt, livemode, portfolioId, data.
 */
export type EventView = PaymentRegisteredEventView | PromiseCreatedEventView | CallCompletedEventView;

/** An event id as the API issues them (`after` that is not one names no event: the same 400 as an unknown one). */
const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * Query of GET /v1/events. `after`: an event id; the list then holds the events created after it
 * (the feed's order), the way a client resumes where it stopped. `from`/`to` bound createdAt as on
 * calls (decoded to ISO instants at the edge).
 */
export class ListEventsQueryDto extends ListQueryDto {
  @CommaListOf(EVENT_TYPES)
  type?: WebhookEventType[];

  @IdFilter()
  portfolioId?: string;

  @InstantBound('from')
  from?: string;

  @InstantBound('to')
  to?: string;

  @IsOptional()
  @IsString({ message: 'after must be the id of an event the key can read' })
  @Matches(EVENT_ID, { message: 'after must be the id of an event the key can read' })
  after?: string;
}
