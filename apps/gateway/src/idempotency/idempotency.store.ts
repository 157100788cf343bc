import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

export interface StoredResponse {
  status: number;
  body: unknown;
  /** The headers the handler set that are replayed with the response (REPLAYED_HEADERS). */
  headers?: Record<string, string>;
}

/**
 * Headers a handler sets that belong to the response itself and are replayed with it. Per-request
 * headers are not: X-Request-Id names the replaying request, rate-limit headers its own
 * consumption; Content-Type is set by Fastify again when it serialises the replayed body.
 */
export const REPLAYED_HEADERS = ['location'] as const;

type IdempotencyRecord =
  | { state: 'processing'; token: string; fingerprint: string }
  | { state: 'done'; fingerprint: string; response: StoredResponse };

export type ClaimResult =
  | { kind: 'claimed'; token: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'conflict' }
  | { kind: 'in-progress' };

// Complete or release only while we still hold the claim (our token): a lease that expired and was
// taken over by another request must not be overwritten.
const COMPLETE = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
if cjson.decode(v).token ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3])) end
return 1
`;

/**
 * Idempotency records in Redis, per API key, for 24 hours. A request claims its key atomically
 * (SET NX with a processing lease); completion and release compare the claim token, so a crash
 * mid-request leaves the key locked at most for the lease. Only successes are stored.
 */
export class IdempotencyStore {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
    private readonly leaseMs: number,
  ) {
    this.redis.defineCommand('dcIdemComplete', { numberOfKeys: 1, lua: COMPLETE });
  }

  key(apiKeyId: string, idempotencyKey: string): string {
    return `${this.keyPrefix}:idem:${apiKeyId}:${idempotencyKey}`;
  }

  async claim(key: string, fingerprint: string): Promise<ClaimResult> {
    const token = randomUUID();
    const record: IdempotencyRecord = { state: 'processing', token, fingerprint };
    if (await this.redis.set(key, JSON.stringify(record), 'PX', this.leaseMs, 'NX')) return { kind: 'claimed', token };
    const raw = await this.redis.get(key);
    if (raw === null) return this.claim(key, fingerprint); // released in between: try again
    const existing = JSON.parse(raw) as IdempotencyRecord;
    if (existing.fingerprint !== fingerprint) return { kind: 'conflict' };
    return existing.state === 'done' ? { kind: 'replay', response: existing.response } : { kind: 'in-progress' };
  }

  async complete(key: string, token: string, fingerprint: string, response: StoredResponse): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', fingerprint, response };
    await this.run(key, token, JSON.stringify(record));
  }

  /** After a failure nothing is stored: the same key can be used again with a corrected body. */
  async release(key: string, token: string): Promise<void> {
    await this.run(key, token, '');
  }

  private run(key: string, token: string, value: string): Promise<unknown> {
    return (this.redis as unknown as { dcIdemComplete(...args: (string | number)[]): Promise<unknown> }).dcIdemComplete(
      key,
      token,
      value,
      this.ttlSeconds,
    );
  }
}
