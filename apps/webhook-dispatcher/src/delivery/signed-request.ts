import { EVENT_TYPE_HEADER, eventBody, serviceSignature, SIGNATURE_HEADER, standardWebhooksHeaders } from '@dc/webhooks';

/** Sent with every delivery, so receivers (and their firewalls) can tell our requests apart. */
export const USER_AGENT = 'dc-webhooks/1';

export interface DeliveryContent {
  deliveryId: string;
  type: string;
  /** ISO 8601 (UTC, milliseconds). */
  eventCreatedAt: string;
  livemode: boolean;
  /** The event's `data` as stored: spliced into the body as is. */
  payload: string;
}

/**
 * The body and headers of one attempt (spec: Events, Delivery; docs/adr/0020): body `{id, type,
 * createdAt, livemode, data}` with the delivery id; `X-Service-Signature: t=…,v1=…` over
 * `"<t>.<body>"` with `t` the attempt's time (fresh on every attempt); `X-Service-Event` the kind;
 * and, when the webhook opted in, the Standard Webhooks headers (webhook-id is the delivery id).
 */
export function signedRequest(
  content: DeliveryContent,
  secret: string,
  standardWebhooks: boolean,
  nowSeconds: number,
): { body: string; headers: Record<string, string> } {
  const body = eventBody({
    deliveryId: content.deliveryId,
    type: content.type,
    createdAt: content.eventCreatedAt,
    livemode: content.livemode,
    dataJson: content.payload,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    [SIGNATURE_HEADER]: serviceSignature(secret, body, nowSeconds),
    [EVENT_TYPE_HEADER]: content.type,
  };
  if (standardWebhooks) Object.assign(headers, standardWebhooksHeaders(secret, content.deliveryId, body, nowSeconds));
  return { body, headers };
}
