import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { AppError, CreatePromiseDto, FulfilPromiseDto, isId, PromisesRpc, SetPromiseStatusDto } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

/** Promise intake from other parts of the platform (README, Operator API). */
@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorPromisesController {
  constructor(private readonly core: CoreClient) {}

  @OperatorRoute('POST', 'portfolios/:id/promises', PromisesRpc.create)
  create(@Param('id') portfolioId: string, @Body() body: CreatePromiseDto, @Caller() caller: OperatorCaller) {
    if (!isId('pf', portfolioId)) throw AppError.notFound('portfolio');
    return this.core.send(PromisesRpc.create, caller, { portfolioId, body });
  }

  @OperatorRoute('POST', 'promises/:id/status', PromisesRpc.setStatus)
  setStatus(@Param('id') id: string, @Body() body: SetPromiseStatusDto, @Caller() caller: OperatorCaller) {
    if (!isId('prm', id)) throw AppError.notFound('promise');
    return this.core.send(PromisesRpc.setStatus, caller, { id, body });
  }

  @OperatorRoute('POST', 'promises/:id/fulfil', PromisesRpc.fulfil)
  fulfil(@Param('id') id: string, @Body() body: FulfilPromiseDto, @Caller() caller: OperatorCaller) {
    if (!isId('prm', id)) throw AppError.notFound('promise');
    return this.core.send(PromisesRpc.fulfil, caller, { id, body });
  }
}
