import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { CreatePortfolioDto, PortfoliosRpc, UpdatePortfolioDto } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorPortfoliosController {
  constructor(private readonly core: CoreClient) {}

  @OperatorRoute('POST', 'organizations/:id/portfolios', PortfoliosRpc.create)
  create(@Param('id') organizationId: string, @Body() body: CreatePortfolioDto, @Caller() caller: OperatorCaller) {
    return this.core.send(PortfoliosRpc.create, caller, { organizationId, body });
  }

  @OperatorRoute('PATCH', 'portfolios/:id', PortfoliosRpc.update)
  update(@Param('id') id: string, @Body() body: UpdatePortfolioDto, @Caller() caller: OperatorCaller) {
    return this.core.send(PortfoliosRpc.update, caller, { id, body });
  }
}
