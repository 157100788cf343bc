import { Body, Controller, Param } from '@nestjs/common';
import { AppError, DebtorBatchDto, DebtorBatchLimits, DebtorsRpc, isId } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { batchCostOf } from '../../rate-limit/rate-cost';
import { PublicRoute } from '../../routes/public-route.decorator';
import { debtorBatchSizeLimit } from './batch-size';

@Controller('portfolios/:id/debtors')
export class DebtorBatchController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'POST',
    scope: 'write',
    rpc: DebtorsRpc.batchWrite,
    cost: batchCostOf('debtors', DebtorBatchLimits.maxDebtors),
    sizeLimit: debtorBatchSizeLimit,
    idempotent: true,
    doc: {
      summary: 'Create or update debtors with their debts (batch of 1 to 500)',
      description:
        'The whole schema is checked first (400 validation_error with issues, nothing processed). Then each item is processed on its own: ' +
        'results has one entry per item, in order; a rejected item carries reason {code, message, path} and leaves nothing behind. ' +
        'Debtors are matched by externalId within the portfolio, debts by (portfolio, externalId). When several live debtors share ' +
        'the externalId (a portfolio load in mode add creates them), the one created first is updated and the others are untouched; ' +
        'a debt is updated when the matched debtor has it (the one created first, if several), and when it is live only under other ' +
        'debtors the item is rejected with debt_external_id_in_use. Body over 5 MB or more than 500 items: 413 payload_too_large ' +
        '(use the portfolio load flow).',
      returns: 'DebtorBatchView',
      errors: ['not_found', 'payload_too_large'],
    },
  })
  async write(@Param('id') id: string, @Body() body: DebtorBatchDto, @Caller() caller: PublicCaller) {
    if (!isId('pf', id)) throw AppError.notFound('portfolio');
    return this.core.send(DebtorsRpc.batchWrite, caller, { portfolioId: id, debtors: body.debtors });
  }
}
