import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

export interface StoredResponse {
  status: number;
  /** What the handler returned; on replay of a compressed record, the JSON bytes it was sent as (a Buffer). */
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
  /** The plain JSON of a finished record from before records were compressed: still decoded, no longer written. */
  | { state: 'done'; fingerprint: string; response: StoredResponse };

/**
 * A finished record (docs/adr/0027): this marker byte, then brotli of one line of JSON metadata,
 * a newline and the body's bytes as sent. Batch responses of ~90 KB shrink several times; the
 * replay sends the very bytes the first response had. A claim (processing) stays plain JSON: the
 * Lua script reads its token.
 */
const COMPRESSED = 0x62; // 'b'
const NEWLINE = 0x0a;
interface DoneMeta {
  state: 'done';
  fingerprint: string;
  status: number;
  headers?: Record<string, string>;
  /** json: the body's JSON bytes follow; none: the handler returned nothing; bytes: a Buffer it returned. */
  body: 'json' | 'none' | 'bytes';
}

export async function encodeDone(fingerprint: string, response: StoredResponse): Promise<Buffer> {
  const body = response.body;
  const kind: DoneMeta['body'] = body === undefined ? 'none' : Buffer.isBuffer(body) ? 'bytes' : 'json';
  const meta: DoneMeta = { state: 'done', fingerprint, status: response.status, headers: response.headers, body: kind };
  const bytes = kind === 'none' ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  const plain = Buffer.concat([Buffer.from(JSON.stringify(meta)), Buffer.of(NEWLINE), bytes]);
  // Quality 5: ~1 ms for 90 KB of JSON, within a few per cent of the best ratio on such text.
  const packed = await compress(plain, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length },
  });
  return Buffer.concat([Buffer.of(COMPRESSED), packed]);
}

type Decoded = { state: 'processing'; fingerprint: string } | { state: 'done'; fingerprint: string; response: StoredResponse };

export async function decodeRecord(raw: Buffer): Promise<Decoded> {
  if (raw[0] !== COMPRESSED) return JSON.parse(raw.toString('utf8')) as IdempotencyRecord;
  const plain = await decompress(raw.subarray(1));
  const newline = plain.indexOf(NEWLINE);
  const meta = JSON.parse(plain.subarray(0, newline).toString('utf8')) as DoneMeta;
  const body = meta.body === 'none' ? undefined : plain.subarray(newline + 1);
  return { state: 'done', fingerprint: meta.fingerprint, response: { status: meta.status, headers: meta.headers, body } };
}

export type ClaimResult =
  | { kind: 'claimed'; token: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'conflict' }
  | { kind: 'in-progress' };

/**
 * The Redis keys of one Idempotency-Key. All of an API key's keys share the hash tag `{<apiKeyId>}`
 * (one Redis Cluster slot), so one script can claim, store and drop its records (docs/adr/0033).
 */
export interface RecordKeys {
  /** The claim while the request runs: a string with the lease as its TTL. */
  claim: string;
  /** The API key's finished records: a hash of `field` → record, plus `bytes`, their total size. */
  records: string;
  /** The same fields scored by the time each was stored (ms, Redis's clock): the oldest goes first. */
  order: string;
  /** `k:<Idempotency-Key>`: never `bytes`. */
  field: string;
}

export interface IdempotencyQuota {
  /** Records per API key. */
  records: number;
  /** Bytes per API key: each record's compressed size plus its field's length. */
  bytes: number;
}

// A finished record within the TTL is replayed; else the request claims the key (SET NX with the
// lease), or finds it claimed and gets the claim to compare fingerprints. One script: a record
// stored between a lookup and a claim would otherwise be run again.
// KEYS: claim, records, order. ARGV: field, claim JSON, lease ms, TTL s.
export const IDEMPOTENCY_CLAIM_SCRIPT = `
local at = redis.call('ZSCORE', KEYS[3], ARGV[1])
if at then
  local t = redis.call('TIME')
  if tonumber(at) > tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[4]) * 1000 then
    local done = redis.call('HGET', KEYS[2], ARGV[1])
    if done then return {'done', done} end
  end
end
if redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3], 'NX') then return {'claimed'} end
return {'claim', redis.call('GET', KEYS[1])}
`;

// Complete or release only while we still hold the claim (our token): a lease that expired and was
// taken over by another request must not be overwritten. Completing stores the record, drops this
// API key's expired records, then its oldest while it is over its quota (never another key's).
// KEYS: claim, records, order. ARGV: token, field, record ('' releases), TTL s, max records, max bytes.
// Returns -1 when the claim is not ours, else the number of records dropped for the quota.
export const IDEMPOTENCY_COMPLETE_SCRIPT = `
local claim = redis.call('GET', KEYS[1])
if not claim or cjson.decode(claim).token ~= ARGV[1] then return -1 end
redis.call('DEL', KEYS[1])
if ARGV[3] == '' then return 0 end
local function drop(field)
  local size = redis.call('HSTRLEN', KEYS[2], field)
  if size > 0 then redis.call('HINCRBY', KEYS[2], 'bytes', -(size + string.len(field))) end
  redis.call('HDEL', KEYS[2], field)
  redis.call('ZREM', KEYS[3], field)
end
-- The order indexes the records: if maxmemory evicted it alone, the records left are orphans.
if redis.call('EXISTS', KEYS[3]) == 0 then redis.call('DEL', KEYS[2]) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, field in ipairs(redis.call('ZRANGE', KEYS[3], '-inf', now - tonumber(ARGV[4]) * 1000, 'BYSCORE')) do drop(field) end
drop(ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HINCRBY', KEYS[2], 'bytes', string.len(ARGV[3]) + string.len(ARGV[2]))
redis.call('ZADD', KEYS[3], now, ARGV[2])
local dropped = 0
while redis.call('ZCARD', KEYS[3]) > tonumber(ARGV[5]) or tonumber(redis.call('HGET', KEYS[2], 'bytes')) > tonumber(ARGV[6]) do
  local oldest = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if not oldest then break end
  drop(oldest)
  dropped = dropped + 1
end
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[4])
return dropped
`;

type Scripts = {
  dcIdemClaimBuffer(claim: string, records: string, order: string, field: string, value: string, leaseMs: number, ttlSeconds: number): Promise<Buffer[]>;
  dcIdemComplete(claim: string, records: string, order: string, token: string, field: string, value: string | Buffer, ...limits: number[]): Promise<number>;
};

/**
 * Idempotency records in Redis, per API key, for 24 hours and within the key's quota. A request
 * claims its key atomically (SET NX with a processing lease); completion and release compare the
 * claim token, so a crash mid-request leaves the key locked at most for the lease. Only successes
 * are stored; an API key's oldest records make room for its new ones (docs/adr/0009).
 */
export class IdempotencyStore {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
    private readonly leaseMs: number,
    private readonly quota: IdempotencyQuota,
  ) {
    this.redis.defineCommand('dcIdemClaim', { numberOfKeys: 3, lua: IDEMPOTENCY_CLAIM_SCRIPT });
    this.redis.defineCommand('dcIdemComplete', { numberOfKeys: 3, lua: IDEMPOTENCY_COMPLETE_SCRIPT });
  }

  keys(apiKeyId: string, idempotencyKey: string): RecordKeys {
    const tag = `${this.keyPrefix}:idem:{${apiKeyId}}`;
    return { claim: `${tag}:claim:${idempotencyKey}`, records: `${tag}:records`, order: `${tag}:order`, field: `k:${idempotencyKey}` };
  }

  async claim(keys: RecordKeys, fingerprint: string): Promise<ClaimResult> {
    const token = randomUUID();
    const record: IdempotencyRecord = { state: 'processing', token, fingerprint };
    const [kind, raw] = await this.scripts.dcIdemClaimBuffer(keys.claim, keys.records, keys.order, keys.field, JSON.stringify(record), this.leaseMs, this.ttlSeconds);
    if (kind.toString() === 'claimed') return { kind: 'claimed', token };
    const existing = await decodeRecord(raw);
    if (existing.fingerprint !== fingerprint) return { kind: 'conflict' };
    return existing.state === 'done' ? { kind: 'replay', response: existing.response } : { kind: 'in-progress' };
  }

  /**
   * Stores the response; resolves to the number of this API key's oldest records dropped to stay
   * within its quota. A record larger than the whole byte quota is not stored (the claim is released).
   */
  async complete(keys: RecordKeys, token: string, fingerprint: string, response: StoredResponse): Promise<number> {
    const record = await encodeDone(fingerprint, response);
    if (record.length + Buffer.byteLength(keys.field) > this.quota.bytes) {
      await this.release(keys, token);
      throw new Error(`record of ${record.length} bytes exceeds the per-key quota of ${this.quota.bytes} bytes`);
    }
    return Math.max(0, await this.run(keys, token, record));
  }

  /** After a failure nothing is stored: the same key can be used again with a corrected body. */
  async release(keys: RecordKeys, token: string): Promise<void> {
    await this.run(keys, token, '');
  }

  private run(keys: RecordKeys, token: string, value: string | Buffer): Promise<number> {
    return this.scripts.dcIdemComplete(keys.claim, keys.records, keys.order, token, keys.field, value, this.ttlSeconds, this.quota.records, this.quota.bytes);
  }

  private get scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }
}
