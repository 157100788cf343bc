import { createHmac } from 'node:crypto';
import { standardWebhooksKey } from './secret';

/**
 * The two signature schemes one secret serves (docs/adr/0020). Receivers verify with the libraries
 * they already use: Stripe's `webhooks.constructEvent` for ours, `standardwebhooks` for the other.
 */

export const SIGNATURE_HEADER = 'x-service-signature';
/** The spec's "second header": names the event kind. */
export const EVENT_TYPE_HEADER = 'x-service-event';

/**
 * `t=<t>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>">`, keyed with the UTF-8 bytes of the whole
 * secret string, whsec_ included (Stripe's convention).
 */
export function serviceSignature(secret: string, body: string | Buffer, timestampSeconds: number): string {
  checkTimestamp(timestampSeconds);
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * Standard Webhooks: webhook-id, webhook-timestamp and webhook-signature = 'v1,<base64 HMAC-SHA256 of
 * "<id>.<t>.<body>">', keyed with the 32 bytes behind whsec_ (standardWebhooksKey).
 */
export function standardWebhooksHeaders(
  secret: string,
  messageId: string,
  body: string | Buffer,
  timestampSeconds: number,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  checkTimestamp(timestampSeconds);
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${messageId}.${timestampSeconds}.`).update(body).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${mac}` };
}

function checkTimestamp(seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new RangeError(`a signature timestamp is whole seconds since the epoch, got ${seconds}`);
}
