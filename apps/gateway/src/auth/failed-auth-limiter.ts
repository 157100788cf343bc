import type { Redis } from 'ioredis';

/**
 * Failed authentications per client address per clock minute, counted in Redis so that every
 * gateway replica sees the same count. Past the limit an address hears 429 instead of 401, and
 * its made-up keys no longer reach api-core: guessing keys, or a flood of them, stays cheap.
 */
const RECORD = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local window = now - (now % 60)
local key = KEYS[1] .. ':' .. window
local n = redis.call('INCR', key)
if n == 1 then redis.call('EXPIRE', key, 70) end
return {n, window + 60 - now}
`;
const READ = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local window = now - (now % 60)
local n = tonumber(redis.call('GET', KEYS[1] .. ':' .. window) or '0')
return {n, window + 60 - now}
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
    redis.defineCommand('dcAuthFailureRecord', { numberOfKeys: 1, lua: RECORD });
    redis.defineCommand('dcAuthFailureRead', { numberOfKeys: 1, lua: READ });
  }

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Counts one failure of `address` and returns the count so far. */
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
    return `${this.keyPrefix}:authfail:${address}`;
  }

  private decode([failures, resetIn]: [number, number]): FailureCount {
    return { failures, resetIn: Math.max(1, resetIn) };
  }
}
