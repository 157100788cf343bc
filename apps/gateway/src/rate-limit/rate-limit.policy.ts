import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, Header } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { CONFIG, LOGGER } from '../tokens';
import { RateLimiter } from './rate-limiter';

export const RATE_LIMIT_POLICY_NAME = 'per-key';

/**
 * Charges the route's cost to the caller's key and sets the consumption headers on the response
 * (kept on errors too). PublicRouteGuard runs it right after authentication, so even a request
 * refused later (403, 404, 400) is counted and carries the headers. If Redis cannot be reached the
 * request is admitted (fail open, counted in gateway_rate_limit_store_errors_total): losing rate
 * limiting for a moment hurts clients less than refusing all traffic (docs/adr/0008).
 * RATE_LIMIT_FAIL_OPEN=false refuses with 503 instead.
 */
@Injectable()
export class RateLimitPolicy {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly metrics: GatewayMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  /** Throws 429 rate_limited (or 503 when the store is unreachable and RATE_LIMIT_FAIL_OPEN=false). */
  async charge(request: FastifyRequest, reply: FastifyReply, cost: number): Promise<void> {
    let decision;
    try {
      decision = await this.limiter.charge(request.caller?.apiKeyId ?? 'anonymous', cost);
    } catch (err) {
      this.metrics.rateLimitStoreErrors.inc();
      if (!this.config.rateLimit.failOpen) {
        throw new AppError(ErrorCode.ServiceUnavailable, 'Rate limiting is temporarily unavailable. Retry later.');
      }
      this.logger.warn({ requestId: request.id, err: (err as Error).message }, 'rate limit store unreachable: admitting request');
      return;
    }
    void reply.header(Header.RateLimitLimit, decision.limit);
    void reply.header(Header.RateLimitRemaining, decision.remaining);
    void reply.header(Header.RateLimitReset, decision.resetAt);
    void reply.header(Header.RateLimitPolicy, `"${RATE_LIMIT_POLICY_NAME}";q=${decision.limit};w=60`);
    void reply.header(Header.RateLimit, `"${RATE_LIMIT_POLICY_NAME}";r=${decision.remaining};t=${decision.resetIn}`);
    if (!decision.allowed) {
      this.metrics.rateLimited.inc();
      void reply.header(Header.RetryAfter, decision.resetIn);
      throw new AppError(
        ErrorCode.RateLimited,
        `Rate limit of ${decision.limit} units per minute exceeded (this request costs ${cost}). Retry after ${decision.resetIn} s.`,
      );
    }
  }
}
