import { Controller, Param, Query } from '@nestjs/common';
import { AppError, DebtListQueryDto, DebtsRpc, isId } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { cappedScanDoc } from '../../routes/capped-scan-doc';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('debts')
export class DebtsController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: DebtsRpc.list,
    doc: {
      summary: 'List debts',
      description: `Filters: portfolioId, debtorId, status (exactly one of active, paid, cancelled; a comma list is 400). ${cappedScanDoc('debtorId and status together', 'debts')}`,
      returns: 'DebtView',
      list: true,
    },
  })
  list(@Query() query: DebtListQueryDto, @Caller() caller: PublicCaller) {
    return this.core.send(DebtsRpc.list, caller, query);
  }

  @PublicRoute({
    method: 'GET',
    path: ':id',
    scope: 'read',
    rpc: DebtsRpc.get,
    doc: { summary: 'One debt', description: 'status is derived from the amounts: paid when paidAmount equals totalAmount.', returns: 'DebtView' },
  })
  get(@Param('id') id: string, @Caller() caller: PublicCaller) {
    if (!isId('debt', id)) throw AppError.notFound('debt');
    return this.core.send(DebtsRpc.get, caller, { id });
  }
}
