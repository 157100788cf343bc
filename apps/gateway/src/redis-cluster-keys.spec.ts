import { IMPORTS_QUEUE, WEBHOOK_DELIVERIES_QUEUE } from '@dc/contracts';
import { bullPrefix } from '@dc/config';
import { PayloadStore } from '@dc/transport';
import { QueueKeys } from 'bullmq';
import IORedis from 'ioredis';
import { FailedAuthLimiter } from './auth/failed-auth-limiter';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { RateLimiter } from './rate-limit/rate-limiter';

/**
 * Redis Cluster safety (docs/adr/0033). A cluster routes a command or script by the keys it names
 * and runs it only when they all live in one slot; a key a script builds inside itself is not named,
 * so the cluster may run the script on a node that does not own that key. Hence: every key a script
 * touches arrives in KEYS, and the keys of one call share a hash tag.
 */

/** Redis Cluster's key slot: CRC16 (XMODEM) of the hash tag, or of the whole key, modulo 16384. */
function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/** Commands the scripts may call, and whether their first argument is a key. */
const COMMANDS: Record<string, { key: boolean }> = {
  TIME: { key: false },
  GET: { key: true },
  SET: { key: true },
  DEL: { key: true },
  EXISTS: { key: true },
  INCR: { key: true },
  INCRBY: { key: true },
  EXPIRE: { key: true },
  HGET: { key: true },
  HSET: { key: true },
  HDEL: { key: true },
  HSTRLEN: { key: true },
  HINCRBY: { key: true },
  ZADD: { key: true },
  ZREM: { key: true },
  ZSCORE: { key: true },
  ZCARD: { key: true },
  ZRANGE: { key: true },
};

const QUOTA = { records: 5_000, bytes: 16 * 1024 * 1024 };

/** The scripts as the gateway registers them on its connection (a client that never connects). */
function gatewayScripts(): { name: string; lua: string; numberOfKeys: number }[] {
  const redis = new IORedis({ lazyConnect: true });
  new RateLimiter(redis, 'dc', 300);
  new FailedAuthLimiter(redis, 'dc', 20);
  new IdempotencyStore(redis, 'dc', 86_400, 30_000, QUOTA);
  const scripts = (redis as unknown as { scriptsSet: Record<string, { lua: string; numberOfKeys: number }> }).scriptsSet;
  return Object.entries(scripts).map(([name, s]) => ({ name, lua: s.lua, numberOfKeys: s.numberOfKeys }));
}

describe('Redis Cluster: the Lua scripts name every key in KEYS', () => {
  const scripts = gatewayScripts();

  it('registers the scripts this check knows', () => {
    expect(scripts.map((s) => s.name).sort()).toEqual(['dcAuthFailureRead', 'dcAuthFailureRecord', 'dcChargeWindow', 'dcIdemClaim', 'dcIdemComplete']);
  });

  it.each(scripts.map((s) => [s.name, s] as const))('%s: every redis.call names its key as KEYS[i], i ≤ numberOfKeys', (_name, script) => {
    const calls = [...script.lua.matchAll(/redis\.(?:p?call)\(\s*'([A-Za-z]+)'\s*(?:,\s*([^,)]+))?/g)];
    expect(calls.length).toBeGreaterThan(0);
    for (const [, command, firstArg] of calls) {
      const known = COMMANDS[command.toUpperCase()];
      expect({ command, known: Boolean(known) }).toEqual({ command, known: true });
      if (!known.key) continue;
      const match = /^KEYS\[(\d+)\]$/.exec(firstArg.trim());
      expect({ command, key: firstArg.trim(), fromKeys: Boolean(match) }).toEqual({ command, key: firstArg.trim(), fromKeys: true });
      expect(Number(match![1])).toBeGreaterThanOrEqual(1);
      expect(Number(match![1])).toBeLessThanOrEqual(script.numberOfKeys);
    }
    // No dynamic command name (redis.call(cmd, …)) slips past the pattern above.
    expect(script.lua.match(/redis\.p?call\(/g)).toHaveLength(calls.length);
  });

  it.each(scripts.map((s) => [s.name, s] as const))('%s: builds no string (no `..`, no string.format) that could become a key', (_name, script) => {
    expect(script.lua).not.toContain('..');
    expect(script.lua).not.toMatch(/string\.(format|rep)|table\.concat/);
  });

  it('rate-limit and failed-auth scripts name one key; the idempotency scripts three in one slot, under REDIS_KEY_PREFIX', () => {
    expect(Object.fromEntries(scripts.map((s) => [s.name, s.numberOfKeys]))).toEqual({
      dcAuthFailureRead: 1,
      dcAuthFailureRecord: 1,
      dcChargeWindow: 1,
      dcIdemClaim: 3,
      dcIdemComplete: 3,
    });
    const redis = new IORedis({ lazyConnect: true });
    const store = new IdempotencyStore(redis, 'dc', 86_400, 30_000, QUOTA);
    // The API key is the hash tag: a client's Idempotency-Key, braces and all, never moves the slot.
    const keys = store.keys('key_1', '{k-1}');
    expect(keys).toEqual({ claim: 'dc:idem:{key_1}:claim:{k-1}', records: 'dc:idem:{key_1}:records', order: 'dc:idem:{key_1}:order', field: 'k:{k-1}' });
    expect(new Set([keys.claim, keys.records, keys.order].map(slotOf))).toEqual(new Set([slotOf('key_1')]));
    expect(slotOf(store.keys('key_2', 'k-1').claim)).not.toBe(slotOf('key_1')); // API keys spread over the cluster
    expect((new PayloadStore(redis, 'dc') as unknown as { key(ref: string): string }).key('r1')).toBe('dc:payload:r1');
  });
});

describe('Redis Cluster: BullMQ keys of one queue share a slot', () => {
  it('the queue prefix is REDIS_KEY_PREFIX as a hash tag', () => {
    expect(bullPrefix({ keyPrefix: 'dc' })).toBe('{dc}');
  });

  it.each([IMPORTS_QUEUE, WEBHOOK_DELIVERIES_QUEUE])('every key of queue %s, a job and its lock included, hashes to one slot', (queue) => {
    const prefix = bullPrefix({ keyPrefix: 'dc' });
    const named = Object.values(new QueueKeys(prefix).getKeys(queue));
    const perJob = ['imp_01J0000000000000000000000', '1'].flatMap((id) => [`${prefix}:${queue}:${id}`, `${prefix}:${queue}:${id}:lock`, `${prefix}:${queue}:${id}:logs`]);
    const keys = [...named, ...perJob];
    expect(keys.length).toBeGreaterThan(15);
    expect(named).toContain(`{dc}:${queue}:wait`);
    expect(new Set(keys.map(slotOf))).toEqual(new Set([slotOf('dc')]));
    // Without the tag the same keys scatter over the cluster: a BullMQ script would be refused (CROSSSLOT).
    expect(new Set(Object.values(new QueueKeys('dc').getKeys(queue)).map(slotOf)).size).toBeGreaterThan(1);
  });

  it('the slot function is Redis Cluster’s (reference values from CLUSTER KEYSLOT)', () => {
    expect(slotOf('foo')).toBe(12182);
    expect(slotOf('{user1000}.following')).toBe(slotOf('{user1000}.followers'));
    expect(slotOf('123456789')).toBe(0x31c3 % 16384);
    expect(slotOf('foo{bar}{zap}')).toBe(slotOf('bar')); // the first tag counts
  });
});
