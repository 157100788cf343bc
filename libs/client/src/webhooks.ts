import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types';

/**
 * Verification of webhook deliveries (spec: Webhooks; docs/adr/0020): `X-Service-Signature:
 * t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the UTF-8 bytes of the whole
 * `whsec_…` secret — Stripe's scheme. Standalone: only node:crypto.
 */

export const SIGNATURE_HEADER = 'x-service-signature';

export type WebhookVerificationFailure =
  | 'missing_signature'
  | 'malformed_signature'
  | 'signature_mismatch'
  | 'timestamp_outside_tolerance'
  | 'invalid_payload';

/** A delivery that is not authentic (or not fresh): answer it 400 and do not process it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(readonly reason: WebhookVerificationFailure, message: string) {
    super(message);
  }
}

/** Node's IncomingHttpHeaders, a fetch Headers, or any record of header names (any case) to values. */
export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far `t` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time (default: now): a Date, or milliseconds since the epoch. */
  now?: Date | number;
}

/**
 * Checks a delivery's X-Service-Signature over the raw body bytes exactly as received (before any
 * JSON parsing) and returns the parsed event; throws WebhookVerificationError when it is not
 * authentic or `t` is outside the tolerance. Several `v1` entries are accepted (any one matching):
 * during a secret rotation's overlap a delivery carries one per secret (`t=…,v1=<new>,v1=<old>`),
 * so a receiver holding either secret verifies it.
 */
export function verifyWebhook(rawBody: Uint8Array | string, headers: HeaderBag, secret: string, options: VerifyWebhookOptions = {}): WebhookEvent {
  const header = headerValue(headers, SIGNATURE_HEADER);
  if (header === undefined || header === '') throw new WebhookVerificationError('missing_signature', `no ${SIGNATURE_HEADER} header`);
  const { timestamp, signatures } = parseSignatureHeader(header);

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest();
  // Every candidate is compared (no early exit), each in constant time.
  let matched = false;
  for (const candidate of signatures) matched = timingSafeEqual(expected, candidate) || matched;
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'no v1 signature matches the body and secret');

  const nowSeconds = Math.floor((options.now === undefined ? Date.now() : Number(options.now)) / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookVerificationError('timestamp_outside_tolerance', `t=${timestamp} is more than ${tolerance} s away from now (${nowSeconds})`);
  }

  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the signed body is not JSON');
  }
}

/** `t=<seconds>` once, and every well-formed `v1=<64 hex>` (other schemes are ignored, as Stripe does). */
function parseSignatureHeader(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) throw new WebhookVerificationError('malformed_signature', `malformed t in ${SIGNATURE_HEADER}`);
      timestamp = Number(value);
    } else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) {
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp === undefined) throw new WebhookVerificationError('malformed_signature', `no t in ${SIGNATURE_HEADER}`);
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_signature', `no v1 signature in ${SIGNATURE_HEADER}`);
  return { timestamp, signatures };
}

function headerValue(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(',') : value;
  }
  return undefined;
}
