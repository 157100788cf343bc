import { DEADLINE_HEADER, REQUEST_ID_HEADER } from '@dc/contracts';
import type { MsgHdrs } from 'nats';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseDeadline } from './deadline';
import { CLAIM_CHECK_HEADER, CLAIM_DIGEST_HEADER, CONTENT_ENCODING_HEADER } from './payload-codec';

/**
 * Requests to api-core are signed by their sender (docs/adr/0026): HMAC-SHA256, keyed with
 * INTERNAL_SIGNING_KEY, over the subject, the request id, the deadline, the encoding headers and
 * the body bytes exactly as sent (after gzip or claim check). NatsRpcServer verifies it
 * before it decodes anything or runs a handler, so a client that can reach NATS but lacks the key
 * can neither forge a caller (`auth`) nor call an operator pattern, and a signed request cannot be
 * altered or replayed after its deadline.
 */
export const SIGNATURE_HEADER = 'x-signature';
/**
 * Set on api-core's refusal of a request it could not verify (its value: the verdict), so the
 * gateway reports its own misconfiguration (a key api-core does not hold) as a 500, never as the
 * client's 401.
 */
export const REFUSED_HEADER = 'x-refused';

export interface SigningKeys {
  /** Signs, and verifies first. */
  current: Buffer;
  /** Still accepted when verifying (rotation: set the new key everywhere, keep the old one here until every sender has it). */
  previous: readonly Buffer[];
}

const SEPARATOR = '\n';
const SIGNATURE_BYTES = 32;

function mac(key: Buffer, subject: string, h: MsgHdrs, body: Uint8Array): Buffer {
  // Subjects and header values cannot contain a newline (NATS protocol), so the fields cannot run into each other.
  return createHmac('sha256', key)
    .update(subject)
    .update(SEPARATOR)
    .update(h.get(REQUEST_ID_HEADER))
    .update(SEPARATOR)
    .update(h.get(DEADLINE_HEADER))
    .update(SEPARATOR)
    .update(h.get(CONTENT_ENCODING_HEADER))
    .update(SEPARATOR)
    .update(h.get(CLAIM_CHECK_HEADER))
    .update(SEPARATOR)
    .update(h.get(CLAIM_DIGEST_HEADER))
    .update(SEPARATOR)
    .update(body)
    .digest();
}

/** Sets the signature header of a request whose other headers and body are final. */
export function signRequest(keys: SigningKeys, subject: string, h: MsgHdrs, body: Uint8Array): void {
  h.set(SIGNATURE_HEADER, mac(keys.current, subject, h, body).toString('base64'));
}

/**
 * `valid`; `missing` (no signature or no deadline); `invalid` (made with no key we hold, or the
 * message was altered); `expired` (genuine, but its deadline has passed: late, or replayed).
 */
export type SignatureVerdict = 'valid' | 'missing' | 'invalid' | 'expired';

export function verifyRequest(keys: SigningKeys, subject: string, h: MsgHdrs | undefined, body: Uint8Array, now: number): SignatureVerdict {
  const signature = h?.get(SIGNATURE_HEADER);
  const deadline = parseDeadline(h?.get(DEADLINE_HEADER));
  if (!h || !signature || deadline === undefined) return 'missing';
  const given = Buffer.from(signature, 'base64');
  if (given.length !== SIGNATURE_BYTES) return 'invalid';
  let genuine = timingSafeEqual(given, mac(keys.current, subject, h, body));
  for (let i = 0; !genuine && i < keys.previous.length; i++) genuine = timingSafeEqual(given, mac(keys.previous[i], subject, h, body));
  if (!genuine) return 'invalid';
  return now >= deadline ? 'expired' : 'valid';
}
