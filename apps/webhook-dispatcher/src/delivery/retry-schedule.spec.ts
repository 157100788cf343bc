import fc from 'fast-check';
import { decideAfterAttempt, isFinalAttempt, retryDelayMs } from './retry-schedule';

const policy = { maxAttempts: 5, retryDelayMs: 90_000, retryJitterMs: 10_000 };

describe('retry schedule', () => {
  it('the fifth attempt of a series is the last: attempts 1 to 4 are retried, the fifth failure is final', () => {
    expect([1, 2, 3, 4, 5].map((n) => isFinalAttempt(n, 0, 5))).toEqual([false, false, false, false, true]);
  });

  it('counts attempts within the series: a redelivery that starts at attempt_count 5 gets five more', () => {
    expect([6, 7, 8, 9, 10].map((n) => isFinalAttempt(n, 5, 5))).toEqual([false, false, false, false, true]);
    // Past the end (a crash consumed attempts): still final, never a sixth send.
    expect(isFinalAttempt(11, 5, 5)).toBe(true);
  });

  it('a success ends the delivery whatever the attempt number', () => {
    expect(decideAfterAttempt(true, 1, 0, policy)).toEqual({ outcome: 'succeeded' });
    expect(decideAfterAttempt(true, 5, 0, policy)).toEqual({ outcome: 'succeeded' });
  });

  it('a failure before the last attempt is retried after the delay; on the last it is final', () => {
    expect(decideAfterAttempt(false, 4, 0, policy, () => 0.5)).toEqual({ outcome: 'retry', delayMs: 90_000 });
    expect(decideAfterAttempt(false, 5, 0, policy, () => 0.5)).toEqual({ outcome: 'failed' });
  });

  it('the jitter spans the whole interval: 0 gives delay - jitter, almost 1 gives almost delay + jitter', () => {
    expect(retryDelayMs(policy, () => 0)).toBe(80_000);
    expect(retryDelayMs(policy, () => 0.999_999_9)).toBe(100_000);
  });

  it('every delay lies within delay ± jitter and is never negative', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 86_400_000 }),
        fc.integer({ min: 0, max: 3_600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (delay, jitter, r) => {
          const d = retryDelayMs({ retryDelayMs: delay, retryJitterMs: jitter }, () => r);
          return Number.isInteger(d) && d >= Math.max(0, delay - jitter) && d <= delay + jitter;
        },
      ),
    );
  });

  it('Math.random spreads the delays over the interval (not all at one end)', () => {
    const delays = Array.from({ length: 2_000 }, () => retryDelayMs(policy));
    expect(Math.min(...delays)).toBeLessThan(82_000);
    expect(Math.max(...delays)).toBeGreaterThan(98_000);
  });
});
