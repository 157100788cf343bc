import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { AppError, CampaignsRpc, CampaignTransitionDto, CreateCampaignDto, isId } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

/** Campaign intake from other parts of the platform (README, Operator API). */
@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorCampaignsController {
  constructor(private readonly core: CoreClient) {}

  @OperatorRoute('POST', 'portfolios/:id/campaigns', CampaignsRpc.create)
  create(@Param('id') portfolioId: string, @Body() body: CreateCampaignDto, @Caller() caller: OperatorCaller) {
    if (!isId('pf', portfolioId)) throw AppError.notFound('portfolio');
    return this.core.send(CampaignsRpc.create, caller, { portfolioId, body });
  }

  @OperatorRoute('POST', 'campaigns/:id/transition', CampaignsRpc.transition)
  transition(@Param('id') id: string, @Body() body: CampaignTransitionDto, @Caller() caller: OperatorCaller) {
    if (!isId('cmp', id)) throw AppError.notFound('campaign');
    return this.core.send(CampaignsRpc.transition, caller, { id, body });
  }
}
