import { Injectable } from '@nestjs/common';
import {
  AppError, AuthContext, ListBody, ListPaymentsQueryDto, OperatorRegisterPaymentDto, PaymentView, RegisterPaymentDto,
} from '@dc/contracts';
import { pageOf } from '../shared/page';
import { PaymentsRepository } from './payments.repository';
import { RegisterPaymentResult, RegisterPaymentUseCase } from './register-payment.usecase';

/**
 * Payment reads, and the two ways in to registration (docs/adr/0010): a key registers in a
 * portfolio it reaches, the operator in any portfolio. The registration itself is RegisterPaymentUseCase.
 */
@Injectable()
export class PaymentsService {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly registerPayment: RegisterPaymentUseCase,
  ) {}

  async list(auth: AuthContext, query: ListPaymentsQueryDto): Promise<ListBody<PaymentView>> {
    const { portfolioId, debtorId, from, to } = query;
    const { rows, resumeAfter } = await this.payments.listReachable(auth, { portfolioId, debtorId, from, to }, query.cursor ?? null, query.limit + 1);
    return pageOf(rows, query.limit, resumeAfter);
  }

  async get(auth: AuthContext, id: string): Promise<PaymentView> {
    const payment = await this.payments.findReachable(auth, id);
    if (!payment) throw AppError.notFound('payment');
    return payment;
  }

  /** POST /v1/payments: idempotent by externalId (`created` false for an identical retry); the portfolio must be in the key's reach. */
  register(auth: AuthContext, input: RegisterPaymentDto): Promise<RegisterPaymentResult> {
    return this.registerPayment.execute({
      portfolioId: input.portfolioId,
      auth,
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
  }

  /** Operator intake (panel, collection link): always a new payment, externalId null, in any portfolio. */
  async registerFromOperator(portfolioId: string, body: OperatorRegisterPaymentDto): Promise<PaymentView> {
    const { payment } = await this.registerPayment.execute({
      portfolioId,
      debtorId: body.debtorId,
      debtId: body.debtId,
      amount: body.amount,
      currency: body.currency,
      paymentDate: body.paymentDate,
      method: body.method,
      reference: body.reference,
      source: body.source,
    });
    return payment;
  }
}
