import { Controller, Param, Query } from '@nestjs/common';
import { AppError, DebtorListQueryDto, DebtorsRpc, isId } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('debtors')
export class DebtorsController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: DebtorsRpc.list,
    doc: { summary: 'List debtors', description: 'Filters: portfolioId; status (one or several, comma-separated). Deleted and erased debtors are never listed.', returns: 'DebtorView', list: true },
  })
  list(@Query() query: DebtorListQueryDto, @Caller() caller: PublicCaller) {
    return this.core.send(DebtorsRpc.list, caller, query);
  }

  @PublicRoute({
    method: 'GET',
    path: ':id',
    scope: 'read',
    rpc: DebtorsRpc.get,
    doc: { summary: 'One debtor', description: 'With phones (owner, ownerSource, verification), emails and compliance flags.', returns: 'DebtorView' },
  })
  get(@Param('id') id: string, @Caller() caller: PublicCaller) {
    if (!isId('dbt', id)) throw AppError.notFound('debtor');
    return this.core.send(DebtorsRpc.get, caller, { id });
  }
}
