import { Controller, Param, Query } from '@nestjs/common';
import { AppError, isId, ListQueryDto, PortfoliosRpc } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('portfolios')
export class PortfoliosController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: PortfoliosRpc.list,
    doc: { summary: 'List portfolios', description: 'Active portfolios of the organization within the key\'s reach, by id.', returns: 'PortfolioView', list: true },
  })
  list(@Query() query: ListQueryDto, @Caller() caller: PublicCaller) {
    return this.core.send(PortfoliosRpc.list, caller, query);
  }

  @PublicRoute({ method: 'GET', path: ':id', scope: 'read', rpc: PortfoliosRpc.get, doc: { summary: 'One portfolio', returns: 'PortfolioView' } })
  get(@Param('id') id: string, @Caller() caller: PublicCaller) {
    // A malformed id cannot exist: answer as for a missing one, without a hop.
    if (!isId('pf', id)) throw AppError.notFound('portfolio');
    return this.core.send(PortfoliosRpc.get, caller, { id });
  }
}
