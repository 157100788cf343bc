import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * Identifiers are `<prefix>_<ULID>`: opaque to clients, time-ordered, so id order is creation
 * order and keyset pagination needs no other column.
 */
export const IdPrefix = {
  Organization: 'org',
  Portfolio: 'pf',
  ApiKey: 'key',
  Debtor: 'dbt',
  Debt: 'debt',
  Phone: 'phn',
  Email: 'eml',
  Note: 'note',
  TimelineEvent: 'tle',
  PendingMessage: 'msg',
  Call: 'call',
  Payment: 'pay',
  Promise: 'prm',
  Campaign: 'cmp',
  Upload: 'upl',
  Import: 'imp',
  Webhook: 'whk',
  Event: 'evt',
  Delivery: 'dlv',
  Attempt: 'att',
} as const;
export type IdPrefix = (typeof IdPrefix)[keyof typeof IdPrefix];

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

/** True when `id` is a well-formed id of the given kind. Malformed path ids answer 404, like missing ones. */
export function isId(prefix: IdPrefix, id: unknown): id is string {
  return typeof id === 'string' && new RegExp(`^${prefix}_${ULID}$`).test(id);
}

// ulid's default generator asks the OS for one random byte per character (16 calls per id); this
// draws them from a pooled buffer instead, refilled 4 KB at a time.
const pool = Buffer.alloc(4096);
let offset = pool.length;
function pooledRandom(): number {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++] / 256;
}

/** A ULID (time-ordered, monotonic within the process). */
export const ulid: () => string = monotonicFactory(pooledRandom);
