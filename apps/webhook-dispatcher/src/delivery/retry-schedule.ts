/** The retry rules of a delivery series (spec: Events, Delivery 6; docs/adr/0020). */
export interface RetryPolicy {
  /** Attempts per series (WEBHOOK_MAX_ATTEMPTS, 5). */
  maxAttempts: number;
  /** Delay between attempts (WEBHOOK_RETRY_DELAY_MS, 90 s)… */
  retryDelayMs: number;
  /** …plus or minus a uniform jitter of at most this much (WEBHOOK_RETRY_JITTER_MS, 10 s). */
  retryJitterMs: number;
}

/** What follows an attempt: the delivery is finished, or its next attempt runs after `delayMs`. */
export type AttemptDecision = { outcome: 'succeeded' } | { outcome: 'failed' } | { outcome: 'retry'; delayMs: number };

/**
 * Whether `attemptNumber` (the delivery's attempt_count once this attempt was claimed; it counts
 * across series) is the last of its series. `seriesStart` is attempt_count when the series began,
 * so the series has had `attemptNumber - seriesStart` attempts.
 */
export function isFinalAttempt(attemptNumber: number, seriesStart: number, maxAttempts: number): boolean {
  return attemptNumber - seriesStart >= maxAttempts;
}

/**
 * The delay before the next attempt: uniform in [retryDelayMs - retryJitterMs, retryDelayMs +
 * retryJitterMs], never negative, so receivers recovering from an outage are not hit by every
 * retry at once. `random` returns a number in [0, 1), as Math.random does.
 */
export function retryDelayMs(policy: Pick<RetryPolicy, 'retryDelayMs' | 'retryJitterMs'>, random: () => number = Math.random): number {
  const offset = (random() * 2 - 1) * policy.retryJitterMs;
  return Math.max(0, Math.round(policy.retryDelayMs + offset));
}

/** Any 2xx succeeds; a failure is final on the series' last attempt (never retried automatically). */
export function decideAfterAttempt(
  ok: boolean,
  attemptNumber: number,
  seriesStart: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): AttemptDecision {
  if (ok) return { outcome: 'succeeded' };
  if (isFinalAttempt(attemptNumber, seriesStart, policy.maxAttempts)) return { outcome: 'failed' };
  return { outcome: 'retry', delayMs: retryDelayMs(policy, random) };
}
