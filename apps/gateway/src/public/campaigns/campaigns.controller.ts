import { Controller, Param, Query } from '@nestjs/common';
import { AppError, CampaignsRpc, isId, ListCampaignsQueryDto } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('campaigns')
export class CampaignsController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: CampaignsRpc.list,
    doc: { summary: 'List campaigns', description: 'Filters: portfolioId, status (comma list). Each campaign carries its aggregate metrics.', returns: 'CampaignView', list: true },
  })
  list(@Query() query: ListCampaignsQueryDto, @Caller() caller: PublicCaller) {
    return this.core.send(CampaignsRpc.list, caller, query);
  }

  @PublicRoute({ method: 'GET', path: ':id', scope: 'read', rpc: CampaignsRpc.get, doc: { summary: 'One campaign', returns: 'CampaignView' } })
  get(@Param('id') id: string, @Caller() caller: PublicCaller) {
    if (!isId('cmp', id)) throw AppError.notFound('campaign');
    return this.core.send(CampaignsRpc.get, caller, { id });
  }
}
