import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppError } from '@dc/contracts';
import { RequiresScope } from '../auth/requires-scope.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { batchCostOf, RateCost } from '../rate-limit/rate-cost.decorator';

/**
 * Registered only when NODE_ENV=test: a write route carrying the same policies as the debtor
 * batch (batch cost, Idempotency-Key) whose processing is observable (a counter), so the
 * gateway policies can be tested end to end independently of any domain endpoint.
 */
@Controller('_test/policy-probe')
export class PolicyProbeController {
  private processed = 0;

  @Post(':portfolioId')
  @HttpCode(200)
  @RequiresScope('write')
  @RateCost(batchCostOf('items', 500))
  @Idempotent()
  async probe(
    @Param('portfolioId') portfolioId: string,
    @Body() body: { delayMs?: number; fail?: boolean; location?: string },
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    if (body?.delayMs) await new Promise((resolve) => setTimeout(resolve, Math.min(body.delayMs!, 5_000)));
    if (body?.fail) throw AppError.validation('The probe was asked to fail.');
    this.processed += 1;
    if (body?.location) void reply.header('Location', body.location);
    return { data: { processed: this.processed, portfolioId } };
  }
}
