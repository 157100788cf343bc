import { Injectable } from '@nestjs/common';
import {
  AppError, AuthContext, CreatePromiseDto, FulfilledPromiseView, FulfilPromiseDto, ListBody, ListPromisesQueryDto, PromiseView,
  SetPromiseStatusDto,
} from '@dc/contracts';
import { eventEmission } from '../outbox/event-emission';
import { RegisterPaymentUseCase } from '../payments/register-payment.usecase';
import { pageOf } from '../shared/page';
import { assertPromiseMove } from './promise-status';
import { PromisesRepository } from './promises.repository';

/** Today's date in UTC as YYYY-MM-DD (the default payment date of a fulfilment). */
const todayUtc = () => new Date().toISOString().slice(0, 10);

/**
 * Payment promises (docs/adr/0013): taken pending, then moved once (promise-status.ts); fulfilment
 * registers the payment through the payments use case, in the same transaction.
 */
@Injectable()
export class PromisesService {
  constructor(
    private readonly promises: PromisesRepository,
    private readonly registerPayment: RegisterPaymentUseCase,
  ) {}

  async list(auth: AuthContext, query: ListPromisesQueryDto): Promise<ListBody<PromiseView>> {
    const filter = { portfolioId: query.portfolioId, debtorId: query.debtorId, statuses: query.status };
    const { rows, resumeAfter } = await this.promises.listReachable(auth, filter, query.cursor ?? null, query.limit + 1);
    return pageOf(rows, query.limit, resumeAfter);
  }

  /**
   * A new pending promise and its promise.created event, written by one statement after one read of
   * what the rules decide on. The debt and the call, when named, must be the debtor's; the currency
   * defaults to the debt's, then the portfolio's main one.
   */
  async create(portfolioId: string, body: CreatePromiseDto): Promise<PromiseView> {
    const context = await this.promises.context(portfolioId, body.debtorId, body.debtId ?? null, body.callId ?? null);
    if (!context) throw AppError.notFound('portfolio');
    if (!context.debtorLive) throw AppError.notFound('debtor');
    if (body.debtId && context.debtCurrency === null) throw AppError.notFound('debt');
    if (body.callId && !context.callFound) throw AppError.notFound('call');
    const at = new Date().toISOString();
    // The view's fields after its id, in the order the API answers them (the event's payload is the same text).
    const draft = {
      portfolioId,
      debtorId: body.debtorId,
      debtId: body.debtId ?? null,
      callId: body.callId ?? null,
      amount: body.amount,
      currency: body.currency ?? context.debtCurrency ?? context.identityCurrency[0],
      promiseDate: body.promiseDate,
      status: 'pending',
      paymentId: null,
      fulfillmentDate: null,
      createdAt: at,
      updatedAt: at,
    };
    return this.promises.insert(draft, eventEmission(context.eventSource, context.organizationId));
  }

  /** pending → partial | broken | cancelled; from any other status 409 invalid_state_transition. */
  setStatus(id: string, body: SetPromiseStatusDto): Promise<PromiseView> {
    return this.promises.transaction(async (tx) => {
      const current = await this.promises.lock(tx, id);
      if (!current) throw AppError.notFound('promise');
      assertPromiseMove(current.status, body.status);
      return this.promises.setStatus(tx, id, body.status);
    });
  }

  /**
   * pending → fulfilled: registers the payment (source promise, payment.registered) with the
   * payments use case and links both ways, all in one transaction.
   */
  fulfil(id: string, body: FulfilPromiseDto): Promise<FulfilledPromiseView> {
    return this.promises.transaction(async (tx) => {
      const current = await this.promises.lock(tx, id);
      if (!current) throw AppError.notFound('promise');
      assertPromiseMove(current.status, 'fulfilled');
      const { payment } = await this.registerPayment.executeIn(tx, {
        portfolioId: current.portfolioId,
        debtorId: current.debtorId,
        debtId: current.debtId,
        promiseId: current.id,
        amount: body.amount ?? current.amount,
        currency: current.currency,
        paymentDate: body.paymentDate ?? todayUtc(),
        method: body.method,
        reference: body.reference,
        source: 'promise',
      });
      const promise = await this.promises.markFulfilled(tx, id, payment.id, payment.paymentDate);
      return { promise, payment };
    });
  }
}
