import type { MsgHdrs } from 'nats';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';

/**
 * Large requests as a transport concern (docs/adr/0017): NATS refuses a message over the server's
 * max_payload (1 MiB by default), so a request whose JSON is large travels gzipped and, when even
 * that does not fit, by claim check (the gzip bytes parked in Redis, the message naming them).
 * Headers say which: the message body is otherwise Nest's wire format, unchanged.
 *
 * zlib runs on libuv's thread pool (the callback API), never on the event loop.
 */

/** `gzip` when the body (or the parked bytes) is gzip of the JSON; absent when the body is the JSON. */
export const CONTENT_ENCODING_HEADER = 'content-encoding';
/** The PayloadStore reference of the parked gzip bytes; the message body is then empty. */
export const CLAIM_CHECK_HEADER = 'x-claim-check';
/**
 * SHA-256 (base64) of the parked bytes: the request's signature covers it (request-signature.ts), so
 * bytes swapped in Redis while parked are refused (docs/adr/0026).
 */
export const CLAIM_DIGEST_HEADER = 'x-claim-digest';
export const GZIP = 'gzip';

/** Up to this many bytes of JSON a request goes as it is: compressing it would cost more than it saves. */
export const COMPRESS_ABOVE_BYTES = 256 * 1024;
/** Room left in a NATS message for its headers (request id, deadline, encoding, claim check: ~200 bytes). */
export const HEADERS_RESERVE_BYTES = 4 * 1024;
/** Gzip levels tried in turn: the fast one first, the strongest only when the fast one does not fit. */
export const GZIP_LEVELS = [1, 9] as const;

const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

/** Largest body of one message, given the server's max_payload (which counts headers and body). */
export function bodyBudget(maxPayloadBytes: number): number {
  return maxPayloadBytes - HEADERS_RESERVE_BYTES;
}

/**
 * How a body travels: `plain` (the JSON), `gzip` (fits one message), or `claim-check` (the
 * smallest gzip found, still over the budget: it must be parked).
 */
export type EncodedBody = { kind: 'plain'; bytes: Uint8Array } | { kind: 'gzip'; bytes: Buffer; level: number } | { kind: 'claim-check'; bytes: Buffer };

/** Whether a JSON body goes as it is (no header to set): small enough for no gzip and for one message. */
export function goesPlain(json: Uint8Array, budgetBytes: number): boolean {
  return json.length <= COMPRESS_ABOVE_BYTES && json.length <= budgetBytes;
}

/** Plain when small, else gzip (fast level first, the strongest only when needed), else claim check. */
export async function encodeBody(json: Uint8Array, budgetBytes: number): Promise<EncodedBody> {
  if (goesPlain(json, budgetBytes)) return { kind: 'plain', bytes: json };
  let smallest = Buffer.alloc(0);
  for (const level of GZIP_LEVELS) {
    const bytes = await gzip(json, { level });
    if (bytes.length <= budgetBytes) return { kind: 'gzip', bytes, level };
    if (!smallest.length || bytes.length < smallest.length) smallest = bytes;
  }
  return { kind: 'claim-check', bytes: smallest };
}

export function gunzipBody(bytes: Uint8Array): Promise<Buffer> {
  return gunzip(bytes);
}

/** Where claim-checked bodies are parked: PayloadStore (Redis, taken once). */
export interface ClaimStore {
  put(bytes: Buffer): Promise<string>;
  take(ref: string): Promise<Buffer | null>;
}

/**
 * The body of a request message for this JSON, with the headers that say how it is encoded set on
 * `h`. A claim-checked body is parked in `store` (a failure there is thrown as it is).
 */
export async function writeBody(h: MsgHdrs, json: Uint8Array, maxPayloadBytes: number, store: ClaimStore): Promise<Uint8Array> {
  const encoded = await encodeBody(json, bodyBudget(maxPayloadBytes));
  if (encoded.kind === 'plain') return encoded.bytes;
  h.set(CONTENT_ENCODING_HEADER, GZIP);
  if (encoded.kind === 'gzip') return encoded.bytes;
  h.set(CLAIM_DIGEST_HEADER, sha256(encoded.bytes));
  h.set(CLAIM_CHECK_HEADER, await store.put(encoded.bytes));
  return new Uint8Array(0);
}

/**
 * A request body that could not be read. `retryable` when sending the request again may work: the
 * claim expired or was already taken, or the store was unreachable. Otherwise sender and receiver
 * disagree (an unknown encoding, corrupt gzip).
 */
export class UnreadableBodyError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'UnreadableBodyError';
  }
}

/** Whether a message's body needs `readBody` (is gzipped or claim-checked). */
export function isEncoded(h: MsgHdrs | undefined): boolean {
  return !!(h?.get(CONTENT_ENCODING_HEADER) || h?.get(CLAIM_CHECK_HEADER));
}

/** The JSON a request message carries, whatever its encoding. Takes a claim-checked body (once). */
export async function readBody(h: MsgHdrs | undefined, body: Uint8Array, store: ClaimStore): Promise<Uint8Array> {
  const encoding = h?.get(CONTENT_ENCODING_HEADER) ?? '';
  if (encoding !== '' && encoding !== GZIP) throw new UnreadableBodyError(`unknown content-encoding "${encoding}"`, false);
  const ref = h?.get(CLAIM_CHECK_HEADER) ?? '';
  let bytes: Uint8Array = body;
  if (ref) {
    const parked = await store.take(ref).catch((err: Error) => {
      throw new UnreadableBodyError(`claim check ${ref} could not be taken: ${err.message}`, true);
    });
    if (!parked) throw new UnreadableBodyError(`claim check ${ref} expired or already taken`, true);
    if (sha256(parked) !== h?.get(CLAIM_DIGEST_HEADER)) throw new UnreadableBodyError(`claim check ${ref}: the parked bytes do not match the signed digest`, false);
    bytes = parked;
  }
  if (encoding !== GZIP) return bytes;
  return gunzipBody(bytes).catch((err: Error) => {
    throw new UnreadableBodyError(`corrupt gzip body: ${err.message}`, false);
  });
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}
