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
 * secret string, whsec_ included (Stripe's convention). Given several secrets (a rotation's overlap,
 * docs/adr/0048: the new one first), one `v1` each, in that order: `t=…,v1=<new>,v1=<old>`, which
 * Stripe's verifier and ours accept when any one matches.
 */
export function serviceSignature(secrets: string | readonly string[], body: string | Buffer, timestampSeconds: number): string {
  checkTimestamp(timestampSeconds);
  let header = `t=${timestampSeconds}`;
  for (const secret of secretList(secrets)) header += `,v1=${createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex')}`;
  return header;
}

/**
 * Standard Webhooks: webhook-id, webhook-timestamp and webhook-signature = 'v1,<base64 HMAC-SHA256 of
 * "<id>.<t>.<body>">', keyed with the 32 bytes behind whsec_ (standardWebhooksKey). Given several
 * secrets, one signature each, space-separated in that order (`v1,<new> v1,<old>`), as the
 * specification allows and its libraries verify (any one matching).
 */
export function standardWebhooksHeaders(
  secrets: string | readonly string[],
  messageId: string,
  body: string | Buffer,
  timestampSeconds: number,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  checkTimestamp(timestampSeconds);
  const signatures = secretList(secrets).map(
    (secret) => `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(`${messageId}.${timestampSeconds}.`).update(body).digest('base64')}`,
  );
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}

function secretList(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new RangeError('a signature needs at least one secret');
  return list;
}

function checkTimestamp(seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new RangeError(`a signature timestamp is whole seconds since the epoch, got ${seconds}`);
}
