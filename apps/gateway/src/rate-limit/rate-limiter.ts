import type { Redis } from 'ioredis';

/**
 * Fixed-window check-and-charge in one atomic Lua script, so the limit holds exactly across any
 * number of gateway replicas. The window is the clock minute of Redis's own TIME, so clock skew
 * between gateway hosts cannot move it. The cost is always charged — a request refused for
 * crossing the limit still counts (spec: "charged but not processed").
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local window = now - (now % 60)
local key = KEYS[1] .. ':' .. window
local used = redis.call('INCRBY', key, tonumber(ARGV[1]))
if used == tonumber(ARGV[1]) then redis.call('EXPIRE', key, 70) end
return {used, window + 60, now}
`;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the window resets. */
  resetAt: number;
  /** Seconds until the reset (≥ 1). */
  resetIn: number;
}

export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    readonly limit: number,
  ) {
    this.redis.defineCommand('dcChargeWindow', { numberOfKeys: 1, lua: SCRIPT });
  }

  async charge(apiKeyId: string, cost: number): Promise<RateLimitDecision> {
    const [used, resetAt, now] = (await (this.redis as unknown as {
      dcChargeWindow(key: string, cost: number): Promise<[number, number, number]>;
    }).dcChargeWindow(`${this.keyPrefix}:rl:${apiKeyId}`, cost)) as [number, number, number];
    return {
      allowed: used <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - used),
      resetAt,
      resetIn: Math.max(1, resetAt - now),
    };
  }
}
