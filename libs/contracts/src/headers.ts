/** Response and request header names used by the public API. */
export const Header = {
  RequestId: 'X-Request-Id',
  IdempotencyKey: 'Idempotency-Key',
  IdempotentReplayed: 'Idempotent-Replayed',
  RateLimitLimit: 'X-RateLimit-Limit',
  RateLimitRemaining: 'X-RateLimit-Remaining',
  RateLimitReset: 'X-RateLimit-Reset',
  RateLimitPolicy: 'RateLimit-Policy',
  RateLimit: 'RateLimit',
  RetryAfter: 'Retry-After',
} as const;
