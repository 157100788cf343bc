import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AppError, cursorAfter, ListPaymentsQueryDto, OperatorRegisterPaymentDto, PublicRequest, RegisterPaymentDto, RpcPattern,
  toPage,
} from '@dc/contracts';
import { item, ok } from '../rpc/reply';
import { toPaymentView } from './payment.mapper';
import { PaymentsRepository } from './payments.repository';
import { RegisterPaymentUseCase } from './register-payment.usecase';

@Controller()
export class PaymentsHandlers {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly registerPayment: RegisterPaymentUseCase,
  ) {}

  @MessagePattern(RpcPattern.PaymentsList)
  async list(@Payload() { auth, input }: PublicRequest<ListPaymentsQueryDto>) {
    const { portfolioId, debtorId, from, to } = input;
    const rows = await this.payments.listReachable(auth, { portfolioId, debtorId, from, to }, cursorAfter(input.cursor), input.limit + 1);
    return ok(toPage(rows, input.limit, toPaymentView));
  }

  @MessagePattern(RpcPattern.PaymentsGet)
  async get(@Payload() { auth, input }: PublicRequest<{ id: string }>) {
    const row = await this.payments.findReachable(auth, input.id);
    if (!row) throw AppError.notFound('payment');
    return item(toPaymentView(row));
  }

  /** POST /v1/payments: 201 when created, 200 for an identical retry. */
  @MessagePattern(RpcPattern.PaymentsRegister)
  async register(@Payload() { auth, input }: PublicRequest<RegisterPaymentDto>) {
    const portfolio = await this.payments.findReachablePortfolio(auth, input.portfolioId);
    if (!portfolio) throw AppError.notFound('portfolio');
    const { payment, created } = await this.registerPayment.execute({
      portfolio,
      externalId: input.externalId,
      debtorId: input.debtorId,
      debtId: input.debtId,
      amount: input.amount,
      currency: input.currency,
      paymentDate: input.paymentDate,
      method: input.method,
      reference: input.reference,
      source: 'api',
    });
    return item(payment, created ? 201 : 200);
  }

  /** Operator intake (panel, collection link): always a new payment, externalId null. */
  @MessagePattern(RpcPattern.OperatorPaymentRegister)
  async registerFromOperator(@Payload() input: { portfolioId: string; body: OperatorRegisterPaymentDto }) {
    const portfolio = await this.payments.findPortfolio(input.portfolioId);
    if (!portfolio) throw AppError.notFound('portfolio');
    const { body } = input;
    const { payment } = await this.registerPayment.execute({
      portfolio,
      debtorId: body.debtorId,
      debtId: body.debtId,
      amount: body.amount,
      currency: body.currency,
      paymentDate: body.paymentDate,
      method: body.method,
      reference: body.reference,
      source: body.source,
    });
    return item(payment, 201);
  }
}
