import { randomBytes } from 'node:crypto';

/** Webhook signing secrets (docs/adr/0020): one string keys both signature schemes (signature.ts). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

const SECRET_BYTES = 32;
const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}$/;

/** 'whsec_' + base64 (standard alphabet, '=' padding removed) of 32 random bytes = 43 characters. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64').slice(0, 43);
}

export function isWebhookSecret(value: string): boolean {
  return typeof value === 'string' && SECRET_PATTERN.test(value) && decode(value).length === SECRET_BYTES;
}

/** The key the Standard Webhooks scheme uses: the 32 bytes base64-decoded from the part after whsec_. */
export function standardWebhooksKey(secret: string): Buffer {
  if (!SECRET_PATTERN.test(secret)) throw new TypeError('not a webhook secret (whsec_ + 43 base64 characters)');
  return decode(secret);
}

function decode(secret: string): Buffer {
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}
