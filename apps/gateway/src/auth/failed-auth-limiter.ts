import type { Redis } from 'ioredis';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * Failed authentications per client (clientOf: an IPv4 address, or an IPv6 /64) per clock minute, counted in Redis so that every
 * gateway replica sees the same count. Past the limit an address hears 429 instead of 401, and
 * its made-up keys no longer reach api-core: guessing keys, or a flood of them, stays cheap.
 * One key per address, passed in KEYS (Redis Cluster, docs/adr/0033): a hash of the window it
 * counts (`w`) and the failures in it (`n`), as the rate limiter's.
 */
export const RECORD_FAILURE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local window = tostring(now - (now % 60))
local n
if redis.call('HGET', KEYS[1], 'w') == window then
  n = redis.call('HINCRBY', KEYS[1], 'n', 1)
else
  redis.call('HSET', KEYS[1], 'w', window, 'n', 1)
  redis.call('EXPIRE', KEYS[1], 70)
  n = 1
end
return {n, tonumber(window) + 60 - now}
`;
export const READ_FAILURES_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local window = tostring(now - (now % 60))
local n = 0
if redis.call('HGET', KEYS[1], 'w') == window then n = tonumber(redis.call('HGET', KEYS[1], 'n')) end
return {n, tonumber(window) + 60 - now}
`;

export interface FailureCount {
  /** Failures from the address in this window. */
  failures: number;
  /** Seconds until the window resets (≥ 1). */
  resetIn: number;
}

type Scripts = {
  dcAuthFailureRecord(key: string): Promise<[number, number]>;
  dcAuthFailureRead(key: string): Promise<[number, number]>;
};

export class FailedAuthLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    /** Failures allowed per minute; 0 turns the limit off. */
    readonly limit: number,
  ) {
    redis.defineCommand('dcAuthFailureRecord', { numberOfKeys: 1, lua: RECORD_FAILURE_SCRIPT });
    redis.defineCommand('dcAuthFailureRead', { numberOfKeys: 1, lua: READ_FAILURES_SCRIPT });
  }

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Counts one failure of `address` (its client: clientOf) and returns the count so far. */
  async record(address: string): Promise<FailureCount> {
    return this.decode(await this.scripts.dcAuthFailureRecord(this.key(address)));
  }

  async read(address: string): Promise<FailureCount> {
    return this.decode(await this.scripts.dcAuthFailureRead(this.key(address)));
  }

  private get scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }

  private key(address: string): string {
    return `${this.keyPrefix}:authfail:${clientOf(address)}`;
  }

  private decode([failures, resetIn]: [number, number]): FailureCount {
    return { failures, resetIn: Math.max(1, resetIn) };
  }
}

/**
 * Whose failures an address counts towards. IPv4: the address. IPv6: its /64, the smallest network
 * a provider hands one subscriber (RFC 6177), who can rotate through 2^64 addresses in it at will.
 * An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, a dual-stack listener) is its IPv4 address.
 */
export function clientOf(address: string): string {
  if (isIPv4(address) || !isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail and a zone allowed). */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = address.split('%')[0].split('::');
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
