import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { AppError, CallsRpc, CreateCallDto, isId, UpdateCallDto } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

/** Call intake from other parts of the platform (README, Operator API). */
@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorCallsController {
  constructor(private readonly core: CoreClient) {}

  @OperatorRoute('POST', 'portfolios/:id/calls', CallsRpc.create)
  create(@Param('id') portfolioId: string, @Body() body: CreateCallDto, @Caller() caller: OperatorCaller) {
    if (!isId('pf', portfolioId)) throw AppError.notFound('portfolio');
    return this.core.send(CallsRpc.create, caller, { portfolioId, body });
  }

  @OperatorRoute('PATCH', 'calls/:id', CallsRpc.update)
  update(@Param('id') id: string, @Body() body: UpdateCallDto, @Caller() caller: OperatorCaller) {
    if (!isId('call', id)) throw AppError.notFound('call');
    return this.core.send(CallsRpc.update, caller, { id, body });
  }
}
