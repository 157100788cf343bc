import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AppError, CreatePromiseDto, cursorAfter, FulfilPromiseDto, ListPromisesQueryDto, PaymentView, PromiseView, PublicRequest,
  RpcPattern, SetPromiseStatusDto, toPage, WebhookEventType,
} from '@dc/contracts';
import { OutboxWriter } from '../outbox/outbox.writer';
import { RegisterPaymentUseCase } from '../payments/register-payment.usecase';
import { item, ok } from '../rpc/reply';
import { assertPromiseMove } from './promise-status';
import { toPromiseView } from './promise.mapper';
import { PromisesRepository } from './promises.repository';

/** Today's date in UTC as YYYY-MM-DD (the default payment date of a fulfilment). */
const todayUtc = () => new Date().toISOString().slice(0, 10);

@Controller()
export class PromisesHandlers {
  constructor(
    private readonly promises: PromisesRepository,
    private readonly outbox: OutboxWriter,
    private readonly registerPayment: RegisterPaymentUseCase,
  ) {}

  @MessagePattern(RpcPattern.PromisesList)
  async list(@Payload() { auth, input }: PublicRequest<ListPromisesQueryDto>) {
    const filter = { portfolioId: input.portfolioId, debtorId: input.debtorId, statuses: input.status };
    const rows = await this.promises.listReachable(auth, filter, cursorAfter(input.cursor), input.limit + 1);
    return ok(toPage(rows, input.limit, toPromiseView));
  }

  /** A new pending promise and its promise.created event, in one transaction. */
  @MessagePattern(RpcPattern.OperatorPromiseCreate)
  async create(@Payload() { portfolioId, body }: { portfolioId: string; body: CreatePromiseDto }) {
    const view = await this.promises.inTransaction(async (tx) => {
      const portfolio = await this.promises.findPortfolio(tx, portfolioId);
      if (!portfolio) throw AppError.notFound('portfolio');
      if (!(await this.promises.liveDebtorExists(tx, portfolio.id, body.debtorId))) throw AppError.notFound('debtor');
      const debt = body.debtId ? await this.promises.findLiveDebt(tx, portfolio.id, body.debtorId, body.debtId) : null;
      if (body.debtId && !debt) throw AppError.notFound('debt');
      if (body.callId && !(await this.promises.callExists(tx, portfolio.id, body.debtorId, body.callId))) throw AppError.notFound('call');
      const currency = body.currency ?? debt?.currency ?? portfolio.identityCurrency[0];
      const row = await this.promises.insert(tx, {
        portfolioId: portfolio.id,
        debtorId: body.debtorId,
        debtId: debt?.id ?? null,
        callId: body.callId ?? null,
        amount: body.amount,
        currency,
        promiseDate: body.promiseDate,
      });
      const promise = toPromiseView(row);
      await this.outbox.append(tx, { organizationId: portfolio.organizationId, portfolioId: portfolio.id, type: WebhookEventType.PromiseCreated, payload: promise });
      return promise;
    });
    return item(view, 201);
  }

  /** pending → partial | broken | cancelled; from any other status 409 invalid_state_transition. */
  @MessagePattern(RpcPattern.OperatorPromiseSetStatus)
  async setStatus(@Payload() { id, body }: { id: string; body: SetPromiseStatusDto }) {
    const view = await this.promises.inTransaction(async (tx) => {
      const current = await this.promises.lock(tx, id);
      if (!current) throw AppError.notFound('promise');
      assertPromiseMove(current.status, body.status);
      return toPromiseView(await this.promises.setStatus(tx, id, body.status));
    });
    return item(view);
  }

  /**
   * pending → fulfilled: registers the payment (source promise, payment.registered) with the
   * payments use case and links both ways, all in one transaction.
   */
  @MessagePattern(RpcPattern.OperatorPromiseFulfil)
  async fulfil(@Payload() { id, body }: { id: string; body: FulfilPromiseDto }) {
    const result = await this.promises.inTransaction(async (tx): Promise<{ promise: PromiseView; payment: PaymentView }> => {
      const current = await this.promises.lock(tx, id);
      if (!current) throw AppError.notFound('promise');
      assertPromiseMove(current.status, 'fulfilled');
      const portfolio = await this.promises.findPortfolio(tx, current.portfolioId);
      if (!portfolio) throw AppError.notFound('promise');
      const { payment } = await this.registerPayment.executeIn(tx, {
        portfolio,
        debtorId: current.debtorId,
        debtId: current.debtId,
        promiseId: current.id,
        amount: body.amount ?? Number(current.amount.toString()),
        currency: current.currency,
        paymentDate: body.paymentDate ?? todayUtc(),
        method: body.method,
        reference: body.reference,
        source: 'promise',
      });
      const promise = toPromiseView(await this.promises.markFulfilled(tx, id, payment.id, payment.paymentDate));
      return { promise, payment };
    });
    return item(result);
  }
}
