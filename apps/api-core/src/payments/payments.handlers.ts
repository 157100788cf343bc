import { Controller } from '@nestjs/common';
import {
  AuthContext, ByIdInput, ListPaymentsQueryDto, OperatorRegisterPaymentDto, PaymentsRpc, RegisterPaymentDto, UnderPortfolioInput,
} from '@dc/contracts';
import { Handles, withStatus } from '../rpc/handles.decorator';
import { PaymentsService } from './payments.service';

@Controller()
export class PaymentsHandlers {
  constructor(private readonly payments: PaymentsService) {}

  @Handles(PaymentsRpc.list)
  list(input: ListPaymentsQueryDto, auth: AuthContext) {
    return this.payments.list(auth, input);
  }

  @Handles(PaymentsRpc.get)
  async get(input: ByIdInput, auth: AuthContext) {
    return { data: await this.payments.get(auth, input.id) };
  }

  /** 201 when created, 200 for an identical retry. */
  @Handles(PaymentsRpc.register)
  async register(input: RegisterPaymentDto, auth: AuthContext) {
    const { payment, created } = await this.payments.register(auth, input);
    return created ? { data: payment } : withStatus(200, { data: payment });
  }

  @Handles(PaymentsRpc.registerFromOperator)
  async registerFromOperator(input: UnderPortfolioInput<OperatorRegisterPaymentDto>) {
    return { data: await this.payments.registerFromOperator(input.portfolioId, input.body) };
  }
}
