import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { RateLimiter } from '../src/rate-limit/rate-limiter';

/**
 * RateLimiter against the real Redis (127.0.0.1:6379): the charges of one event-loop turn go to
 * Redis as one script call per key, and each gets the decision it would have had alone, in arrival
 * order. (The HTTP behaviour across two gateways: rate-limit.e2e-spec.ts.)
 */
describe('RateLimiter: one script call per key and turn, decisions as if one after the other', () => {
  const prefix = `rl-test-${process.pid}-${randomBytes(3).toString('hex')}`;
  let redis: Redis;
  let commands: string[];

  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379, enableAutoPipelining: true, lazyConnect: false });
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
      commands.push(command.name);
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as typeof redis.sendCommand;
  });
  beforeEach(() => (commands = []));
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  /**
   * Charges `costs[i]` to `key(i)`, each from its own setImmediate callback: one check phase, each
   * callback followed by its microtasks, as requests read in one poll phase. (Timers would not do:
   * created across a millisecond boundary, they fire in different turns.)
   */
  const chargeFromSeparateCallbacks = async (limiter: RateLimiter, costs: number[], key: (i: number) => string = () => 'k1') => {
    const charges = await Promise.all(
      costs.map((cost, i) => new Promise<{ decision: ReturnType<RateLimiter['charge']> }>((resolve) => setImmediate(() => resolve({ decision: limiter.charge(key(i), cost) })))),
    );
    return charges.map((c) => c.decision);
  };

  it('30 charges of one turn against a limit of 25: one script call; the first 25 admitted with remaining 24 … 0, the rest refused', async () => {
    const limiter = new RateLimiter(redis, prefix, 25);
    await limiter.charge('warm-up', 1); // Redis learns the script (a first call also sends it)
    commands = [];
    const decisions = await Promise.all(await chargeFromSeparateCallbacks(limiter, Array(30).fill(1)));
    expect(commands.filter((c) => c === 'evalsha' || c === 'eval')).toHaveLength(1);
    expect(decisions.map((d) => d.allowed)).toEqual([...Array(25).fill(true), ...Array(5).fill(false)]);
    expect(decisions.map((d) => d.remaining)).toEqual([...Array.from({ length: 25 }, (_, i) => 24 - i), ...Array(5).fill(0)]);
    expect(new Set(decisions.map((d) => d.resetAt)).size).toBe(1);
    expect(decisions[0]).toMatchObject({ limit: 25, resetIn: expect.any(Number) });
  });

  it('weighted costs count in arrival order; the next turn goes on from the window total; keys are counted apart', async () => {
    const limiter = new RateLimiter(redis, `${prefix}:w`, 20);
    await limiter.charge('warm-up', 1);
    commands = [];
    const first = await Promise.all(await chargeFromSeparateCallbacks(limiter, [10, 1, 10, 1], (i) => (i % 2 === 0 ? 'batch' : 'reads')));
    expect(commands.filter((c) => c === 'evalsha' || c === 'eval')).toHaveLength(2);
    expect(first.map((d) => [d.allowed, d.remaining])).toEqual([[true, 10], [true, 19], [true, 0], [true, 18]]);
    // A later turn: the batch key is at 20, so one more unit is refused; the reads key goes on at 2.
    const [batch, reads] = await Promise.all([limiter.charge('batch', 1), limiter.charge('reads', 1)]);
    expect([batch.allowed, batch.remaining, reads.allowed, reads.remaining]).toEqual([false, 0, true, 17]);
  });

  it('a charge that fails reaches every request of the turn (the guard then fails open or refuses)', async () => {
    const offline = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    try {
      const limiter = new RateLimiter(offline, prefix, 10);
      const outcomes = await Promise.allSettled(await chargeFromSeparateCallbacks(limiter, [1, 1, 1]));
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    } finally {
      offline.disconnect();
    }
  });
});
