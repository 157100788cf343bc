import { Body, Controller, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { AppError, DebtorBatchDto, DebtorBatchLimits, DebtorBatchInput, DebtorBatchView, isId, ItemBody, RpcPattern } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { gzipSync } from 'node:zlib';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { PayloadStore } from '@dc/transport';
import { CoreClient } from '../../core-client/core-client';
import { Idempotent } from '../../idempotency/idempotent.decorator';
import { ApiDoc } from '../../openapi/api-doc.decorator';
import { batchCostOf, RateCost } from '../../rate-limit/rate-cost.decorator';
import { DebtorBatchSizeGuard } from './batch-size.guard';

/** Above this the debtors travel gzipped to api-core: NATS refuses messages over 1 MB by default. */
const GZIP_ABOVE_CHARS = 256 * 1024;
/** Room left in a NATS message for everything but the debtors (envelope, auth, headers). */
const ENVELOPE_RESERVE_BYTES = 48 * 1024;

/**
 * The debtors as they travel to api-core: plain when small, else gzip (fast level first, the
 * strongest level only when needed). Returns null when even that does not fit one message.
 */
export function encodeDebtors(
  portfolioId: string,
  debtors: DebtorBatchDto['debtors'],
  maxPayloadBytes = 1024 * 1024,
): DebtorBatchInput | null {
  const budget = maxPayloadBytes - ENVELOPE_RESERVE_BYTES;
  const json = JSON.stringify(debtors);
  if (json.length <= GZIP_ABOVE_CHARS) return { portfolioId, debtors };
  for (const level of [1, 9]) {
    const debtorsGzip = gzipSync(json, { level }).toString('base64');
    if (debtorsGzip.length <= budget) return { portfolioId, debtorsGzip };
  }
  return null;
}

@Controller('portfolios/:id/debtors')
export class DebtorBatchController {
  constructor(
    private readonly core: CoreClient,
    private readonly payloads: PayloadStore,
  ) {}

  // Method decorators apply bottom-up and UseGuards appends: RequiresScope (auth, rate limit with
  // the batch's cost, scope) is nearest the method so its guards run first, then the size guard,
  // then the Idempotency-Key interceptor, then the validation pipe.
  @Post()
  @HttpCode(200)
  @ApiDoc({
    summary: 'Create or update debtors with their debts (batch of 1 to 500)',
    description:
      'The whole schema is checked first (400 validation_error with issues, nothing processed). Then each item is processed on its own: ' +
      'results has one entry per item, in order; a rejected item carries reason {code, message, path} and leaves nothing behind. ' +
      'Debtors are matched by externalId within the portfolio, debts by (portfolio, externalId). Body over 5 MB or more than 500 ' +
      'items: 413 payload_too_large (use the portfolio load flow).',
    returns: 'DebtorBatchView',
    errors: ['not_found', 'payload_too_large'],
  })
  @Idempotent()
  @UseGuards(DebtorBatchSizeGuard)
  @RateCost(batchCostOf('debtors', DebtorBatchLimits.maxDebtors))
  @RequiresScope('write')
  async write(
    @Param('id') id: string,
    @Body() body: DebtorBatchDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ItemBody<DebtorBatchView>> {
    if (!isId('pf', id)) throw AppError.notFound('portfolio');
    // The budget is the NATS server's own max_payload (1 MB by default; 8 MB in our compose and
    // Kubernetes configuration, where every 5 MB batch fits).
    // Rare, highly varied bodies close to 5 MB do not compress below NATS's default 1 MB: they go
    // by claim check through Redis (docs/adr/0012).
    const input = encodeDebtors(id, body.debtors, this.core.maxPayload()) ?? {
      portfolioId: id,
      debtorsRef: await this.payloads.put(gzipSync(JSON.stringify(body.debtors), { level: 1 })),
    };
    return this.core.forward(req, res, RpcPattern.DebtorBatchWrite, input);
  }
}
