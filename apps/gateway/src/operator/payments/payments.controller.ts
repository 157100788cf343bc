import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { AppError, isId, OperatorRegisterPaymentDto, PaymentsRpc } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorPaymentsController {
  constructor(private readonly core: CoreClient) {}

  /** Panel and collection-link payments: 201 with externalId null; emits payment.registered. */
  @OperatorRoute('POST', 'portfolios/:id/payments', PaymentsRpc.registerFromOperator)
  register(@Param('id') portfolioId: string, @Body() body: OperatorRegisterPaymentDto, @Caller() caller: OperatorCaller) {
    if (!isId('pf', portfolioId)) throw AppError.notFound('portfolio');
    return this.core.send(PaymentsRpc.registerFromOperator, caller, { portfolioId, body });
  }
}
