import { EVENT_TYPE_HEADER, eventBody, serviceSignature, SIGNATURE_HEADER, standardWebhooksHeaders } from '@dc/webhooks';

/** Sent with every delivery, so receivers (and their firewalls) can tell our requests apart. */
export const USER_AGENT = 'dc-webhooks/1';

export interface DeliveryContent {
  deliveryId: string;
  /** The outbox event's id (`evt_…`): the same on every delivery of the event, to every webhook. */
  eventId: string;
  type: string;
  /** ISO 8601 (UTC, milliseconds). */
  eventCreatedAt: string;
  livemode: boolean;
  /** The event's `data` as stored: spliced into the body as is. */
  payload: string;
}

/**
 * The body and headers of one attempt (spec: Events, Delivery; docs/adr/0020): body `{id, eventId,
 * type, createdAt, livemode, data}` with the delivery id and the event id; `X-Service-Signature:
 * t=…,v1=…` over `"<t>.<body>"` with `t` the attempt's time (fresh on every attempt);
 * `X-Service-Event` the kind; and, when the webhook opted in, the Standard Webhooks headers
 * (webhook-id is the delivery id). `secrets` is the webhook's current secret, then, during a
 * rotation's overlap, the previous one: one signature each in both schemes (docs/adr/0048).
 */
export function signedRequest(
  content: DeliveryContent,
  secrets: string | readonly string[],
  standardWebhooks: boolean,
  nowSeconds: number,
): { body: string; headers: Record<string, string> } {
  const body = eventBody({
    deliveryId: content.deliveryId,
    eventId: content.eventId,
    type: content.type,
    createdAt: content.eventCreatedAt,
    livemode: content.livemode,
    dataJson: content.payload,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    [SIGNATURE_HEADER]: serviceSignature(secrets, body, nowSeconds),
    [EVENT_TYPE_HEADER]: content.type,
  };
  if (standardWebhooks) Object.assign(headers, standardWebhooksHeaders(secrets, content.deliveryId, body, nowSeconds));
  return { body, headers };
}
