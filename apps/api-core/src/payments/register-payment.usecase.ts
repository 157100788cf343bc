import { Inject, Injectable } from '@nestjs/common';
import {
  AppError, DEFAULT_PAYMENT_METHOD, ErrorCode, isIso4217, PaymentMethod, PaymentSource, PaymentView, WebhookEventType,
} from '@dc/contracts';
import type { Transactions, Tx } from '@dc/database';
import { EventsService } from '../outbox/events.service';
import { IntakePortfolio, LookupsRepository } from '../shared/lookups.repository';
import { TRANSACTIONS } from '../tokens';
import { NewPayment, PaymentsRepository, StoredPayment } from './payments.repository';

export interface RegisterPaymentCommand {
  /** Already resolved by the caller with its own reach rules (API key, operator). */
  portfolio: IntakePortfolio;
  debtorId: string;
  debtId?: string | null;
  promiseId?: string | null;
  amount: number;
  /** Omitted: derived (debt → single currency of the debtor's live debts → portfolio main currency). */
  currency?: string | null;
  paymentDate: string;
  /** Omitted: transfer. */
  method?: PaymentMethod | null;
  reference?: string | null;
  /** Client idempotency key (POST /v1/payments only). */
  externalId?: string | null;
  source: Exclude<PaymentSource, 'import'>;
}

export interface RegisterPaymentResult {
  payment: PaymentView;
  /** false: an identical payment with this externalId already existed; nothing was written. */
  created: boolean;
}

/**
 * Registers one payment: checks the debtor and debt, derives the currency, inserts the row and
 * its payment.registered outbox row in one transaction. Idempotent by (portfolio, externalId):
 * a retry is answered from the stored payment (200, or 409 naming what differs) before anything
 * else is checked, so an identical retry gets 200 even if the debtor, its debts or the portfolio
 * changed since; the unique index arbitrates parallel first attempts, and the losers are answered
 * the same way. Does not touch the debt's paidAmount (docs/adr/0010-payments.md).
 */
@Injectable()
export class RegisterPaymentUseCase {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly lookups: LookupsRepository,
    private readonly events: EventsService,
    @Inject(TRANSACTIONS) private readonly transactions: Transactions,
  ) {}

  execute(command: RegisterPaymentCommand): Promise<RegisterPaymentResult> {
    return this.transactions.transaction((tx) => this.executeIn(tx, command));
  }

  /** For flows that own a transaction (promise fulfilment): the payment commits or rolls back with it. */
  async executeIn(tx: Tx, command: RegisterPaymentCommand): Promise<RegisterPaymentResult> {
    const { portfolio } = command;
    if (command.externalId) {
      const earlier = await this.payments.findByExternalId(tx, portfolio.id, command.externalId);
      if (earlier) return this.answerRetry(tx, earlier, command);
    }
    if (!(await this.lookups.liveDebtorExists(tx, portfolio.id, command.debtorId))) throw AppError.notFound('debtor');
    const debt = command.debtId ? await this.lookups.findLiveDebt(tx, portfolio.id, command.debtorId, command.debtId) : null;
    if (command.debtId && !debt) throw AppError.notFound('debt');

    const candidate: NewPayment = {
      externalId: command.externalId ?? null,
      portfolioId: portfolio.id,
      debtorId: command.debtorId,
      debtId: debt?.id ?? null,
      promiseId: command.promiseId ?? null,
      amount: command.amount,
      currency: command.currency ?? (await this.deriveCurrency(tx, portfolio, command.debtorId, debt?.currency)),
      currencyDerived: !command.currency,
      paymentDate: command.paymentDate,
      paymentMethod: command.method ?? DEFAULT_PAYMENT_METHOD,
      reference: command.reference ?? null,
      source: command.source,
    };

    const payment = await this.payments.insertUnlessExists(tx, candidate);
    if (payment) {
      await this.events.record(tx, {
        organizationId: portfolio.organizationId,
        portfolioId: portfolio.id,
        type: WebhookEventType.PaymentRegistered,
        payload: payment,
      });
      return { payment, created: true };
    }
    // A parallel first attempt committed meanwhile (only a non-null externalId can conflict).
    const winner = await this.payments.findByExternalId(tx, portfolio.id, candidate.externalId as string);
    if (!winner) throw new Error(`payment ${String(candidate.externalId)} conflicted but cannot be read`);
    return this.answerRetry(tx, winner, command);
  }

  /**
   * Spec rules 1-2: the same request again is answered with the stored payment (nothing written,
   * no event); any field that differs is 409. Omitted method means transfer. An omitted currency
   * matches a payment whose currency was derived too; one the client named earlier matches if it is
   * what the currency would derive to now.
   */
  private async answerRetry(tx: Tx, stored: StoredPayment, command: RegisterPaymentCommand): Promise<RegisterPaymentResult> {
    const existing = stored.payment;
    const differing: string[] = [];
    if (existing.amount !== command.amount) differing.push('amount');
    if (!(await this.sameCurrency(tx, stored, command))) differing.push('currency');
    if (existing.paymentDate !== command.paymentDate) differing.push('paymentDate');
    if (existing.debtorId !== command.debtorId) differing.push('debtorId');
    if (existing.debtId !== (command.debtId ?? null)) differing.push('debtId');
    if (existing.paymentMethod !== (command.method ?? DEFAULT_PAYMENT_METHOD)) differing.push('method');
    if (existing.reference !== (command.reference ?? null)) differing.push('reference');
    if (differing.length) {
      throw new AppError(
        ErrorCode.IdempotencyConflict,
        `A payment with externalId ${String(command.externalId)} already exists in this portfolio with a different ${differing.join(', ')}.`,
      );
    }
    return { payment: existing, created: false };
  }

  private async sameCurrency(tx: Tx, stored: StoredPayment, command: RegisterPaymentCommand): Promise<boolean> {
    const { payment } = stored;
    if (command.currency) return command.currency === payment.currency;
    if (stored.currencyDerived) return true;
    const debt = command.debtId ? await this.lookups.findLiveDebt(tx, payment.portfolioId, command.debtorId, command.debtId) : null;
    const derived = await this.deriveCurrency(tx, command.portfolio, command.debtorId, debt?.currency).catch(() => null);
    return derived === payment.currency;
  }

  private async deriveCurrency(tx: Tx, portfolio: IntakePortfolio, debtorId: string, debtCurrency: string | undefined): Promise<string> {
    let currency = debtCurrency;
    if (currency === undefined) {
      const currencies = await this.payments.liveDebtCurrencies(tx, portfolio.id, debtorId);
      currency = currencies.length === 1 ? currencies[0] : portfolio.identityCurrency[0];
    }
    if (!isIso4217(currency)) {
      throw AppError.validation('currency was omitted and cannot be derived from the debt, the debtor\'s live debts or the portfolio; send currency', [
        { message: 'currency is required for this payment', path: 'currency' },
      ]);
    }
    return currency;
  }
}
