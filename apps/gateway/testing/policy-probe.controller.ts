import { Body, Controller, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppError } from '@dc/contracts';
import { batchCostOf } from '../src/rate-limit/rate-cost';
import { PublicRoute } from '../src/routes/public-route.decorator';

/**
 * Served only by the test entry point (testing/main.ts): a write route carrying the same policies
 * as the debtor batch (batch cost, Idempotency-Key) whose processing is observable (a counter), so
 * the gateway policies can be tested end to end independently of any domain endpoint.
 */
@Controller('_test/policy-probe')
export class PolicyProbeController {
  private processed = 0;

  @PublicRoute({
    method: 'POST',
    path: ':portfolioId',
    scope: 'write',
    rpc: { status: 200 },
    cost: batchCostOf('items', 500),
    idempotent: true,
    doc: { summary: 'Policy probe (tests only)', returns: 'object' },
  })
  async probe(
    @Param('portfolioId') portfolioId: string,
    @Body() body: { delayMs?: number; fail?: boolean; location?: string },
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const delayMs = body?.delayMs;
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, 5_000)));
    if (body?.fail) throw AppError.validation('The probe was asked to fail.');
    this.processed += 1;
    if (body?.location) void reply.header('Location', body.location);
    return { data: { processed: this.processed, portfolioId } };
  }
}
