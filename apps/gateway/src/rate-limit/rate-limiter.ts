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

/** A charge waiting for its key's turn: its place in the turn is its cumulative cost. */
interface Waiter {
  upTo: number;
  resolve: (decision: RateLimitDecision) => void;
  reject: (err: unknown) => void;
}

/** The charges one key received during one turn of the event loop. */
interface Turn {
  total: number;
  waiters: Waiter[];
}

/** The script as ioredis defines it on the connection (`defineCommand`). */
interface ChargeWindowCommand {
  dcChargeWindow(key: string, cost: number): Promise<[number, number, number]>;
}

/**
 * Charges are gathered per key for one turn of the event loop (`setImmediate`) and sent as one
 * script call with their sum: under load one Redis command and one write per key and turn instead
 * of one per request (docs/adr/0034). The decisions are the ones the charges would get one after the
 * other in arrival order at the same instant: the script answers the window's total after the sum,
 * so charge i of the turn saw `total − sum + (its cumulative cost)`.
 */
export class RateLimiter {
  private turn = new Map<string, Turn>();
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    readonly limit: number,
  ) {
    this.redis.defineCommand('dcChargeWindow', { numberOfKeys: 1, lua: CHARGE_WINDOW_SCRIPT });
  }

  charge(apiKeyId: string, cost: number): Promise<RateLimitDecision> {
    let turn = this.turn.get(apiKeyId);
    if (!turn) {
      turn = { total: 0, waiters: [] };
      this.turn.set(apiKeyId, turn);
    }
    turn.total += cost;
    const upTo = turn.total;
    const waiters = turn.waiters;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.send);
    }
    return new Promise((resolve, reject) => waiters.push({ upTo, resolve, reject }));
  }

  private readonly send = (): void => {
    const turn = this.turn;
    this.turn = new Map();
    this.scheduled = false;
    for (const [apiKeyId, { total, waiters }] of turn) {
      this.call(`${this.keyPrefix}:rl:${apiKeyId}`, total).then(
        ([used, resetAt, now]) => {
          for (const w of waiters) w.resolve(this.decision(used - total + w.upTo, resetAt, now));
        },
        (err: unknown) => {
          for (const w of waiters) w.reject(err);
        },
      );
    }
  };

  /** ioredis throws, rather than rejects, when the connection is down and commands are not queued. */
  private async call(key: string, cost: number): Promise<[number, number, number]> {
    return (this.redis as unknown as ChargeWindowCommand).dcChargeWindow(key, cost);
  }

  private decision(used: number, resetAt: number, now: number): RateLimitDecision {
    return {
      allowed: used <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - used),
      resetAt,
      resetIn: Math.max(1, resetAt - now),
    };
  }
}
