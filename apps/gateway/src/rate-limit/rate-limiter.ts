import type { Redis } from 'ioredis';

/**
 * Fixed-window check-and-charge in one atomic Lua script, so the limit holds exactly across any
 * number of gateway replicas. The window is the clock minute of Redis's own TIME, so clock skew
 * between gateway hosts cannot move it. The cost is always charged — a request refused for
 * crossing the limit still counts (spec: "charged but not processed").
 *
 * One key per API key, passed in KEYS (Redis Cluster routes a script by its KEYS and refuses a key
 * built inside it, docs/adr/0033): a hash of the window it counts (`w`, the minute's first second)
 * and the units used in it (`n`). A charge in a later minute starts the count again.
 */
export const CHARGE_WINDOW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local window = tostring(now - (now % 60))
local cost = tonumber(ARGV[1])
local used
if redis.call('HGET', KEYS[1], 'w') == window then
  used = redis.call('HINCRBY', KEYS[1], 'n', cost)
else
  redis.call('HSET', KEYS[1], 'w', window, 'n', cost)
  redis.call('EXPIRE', KEYS[1], 70)
  used = cost
end
return {used, tonumber(window) + 60, now}
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
    this.redis.defineCommand('dcChargeWindow', { numberOfKeys: 1, lua: CHARGE_WINDOW_SCRIPT });
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
