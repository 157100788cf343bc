import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format: `svc_<stage>_<43 characters>`, the 43 being 37 random base62 characters
 * (~220 bits) followed by a 6-character base62 CRC32 of everything before it. The checksum lets the
 * gateway refuse a malformed or mistyped key before any lookup, and lets secret scanners recognise
 * leaked keys without a call to us.
 */
export type KeyStage = 'live' | 'test';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 37;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^svc_(live|test)_([0-9A-Za-z]{43})$/;
/** Characters of the key shown in listings and logs: `svc_live_` plus four. */
export const KEY_PREFIX_LENGTH = 13;

function base62(value: number, width: number): string {
  let out = '';
  let n = value;
  for (let i = 0; i < width; i += 1) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 62 * 4: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

export function generateApiKey(stage: KeyStage): string {
  const body = `svc_${stage}_${randomBase62(RANDOM_LENGTH)}`;
  return body + checksum(body);
}

/** Format and checksum check, no I/O. Returns the stage, or null for a malformed key. */
export function parseApiKey(key: string): { stage: KeyStage } | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  if (checksum(body) !== key.slice(-CHECKSUM_LENGTH)) return null;
  return { stage: match[1] as KeyStage };
}

/** Keys are high-entropy, so a fast hash is enough; only the hash is stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function apiKeyDisplayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
