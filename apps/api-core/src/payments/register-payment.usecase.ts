import { Injectable } from '@nestjs/common';
import { AppError, AuthContext, DEFAULT_PAYMENT_METHOD, ErrorCode, isIso4217, PaymentMethod, PaymentSource, PaymentView } from '@dc/contracts';
import type { SqlTransaction } from '@dc/database';
import { eventEmission } from '../outbox/event-emission';
import { PaymentContext, PaymentsRepository, StoredPayment } from './payments.repository';

export interface RegisterPaymentCommand {
  portfolioId: string;
  /** A key's registration: the portfolio must be inside its reach. Absent: any portfolio (the operator, a promise's). */
  auth?: AuthContext;
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
 * Registers one payment: checks the portfolio, debtor and debt, derives the currency, inserts the
 * row and its payment.registered outbox row. Two statements (docs/adr/0047): one read of all the
 * rules decide on, one write of the payment and its event together, so no interactive transaction
 * is needed. Idempotent by (portfolio, externalId): a retry is answered from the stored payment
 * (200, or 409 naming what differs) before anything else is checked, so an identical retry gets 200
 * even if the debtor, its debts or the portfolio changed since; the unique index arbitrates
 * parallel first attempts, and the losers are answered the same way. Does not touch the debt's
 * paidAmount (docs/adr/0010-payments.md).
 */
@Injectable()
export class RegisterPaymentUseCase {
  constructor(private readonly payments: PaymentsRepository) {}

  execute(command: RegisterPaymentCommand): Promise<RegisterPaymentResult> {
    return this.register(null, command);
  }

  /** For flows that own a transaction (promise fulfilment): the payment commits or rolls back with it. */
  executeIn(tx: SqlTransaction, command: RegisterPaymentCommand): Promise<RegisterPaymentResult> {
    return this.register(tx, command);
  }

  private async register(tx: SqlTransaction | null, command: RegisterPaymentCommand): Promise<RegisterPaymentResult> {
    const context = await this.readContext(tx, command);
    if (context.earlier) return this.answerRetry(context, context.earlier, command);
    if (!context.debtorLive) throw AppError.notFound('debtor');
    if (command.debtId && context.debtCurrency === null) throw AppError.notFound('debt');

    const at = new Date().toISOString();
    // The view's fields after its id, in the order the API answers them (the event's payload is the same text).
    const draft = {
      externalId: command.externalId ?? null,
      portfolioId: command.portfolioId,
      debtorId: command.debtorId,
      debtId: command.debtId ?? null,
      promiseId: command.promiseId ?? null,
      amount: command.amount,
      currency: command.currency ?? deriveCurrency(context, command.debtId),
      paymentDate: command.paymentDate,
      paymentMethod: command.method ?? DEFAULT_PAYMENT_METHOD,
      reference: command.reference ?? null,
      createdAt: at,
      updatedAt: at,
    };
    const event = eventEmission(context.eventSource, context.organizationId);
    // A key's payment: its next read shows it wherever it runs (docs/adr/0050).
    const payment = await this.payments.insert(tx, { payment: draft, currencyDerived: !command.currency, source: command.source, event }, command.auth?.apiKeyId ?? null);
    if (payment) return { payment, created: true };

    // A parallel first attempt committed meanwhile (only a non-null externalId can conflict).
    const now = await this.readContext(tx, command);
    if (!now.earlier) throw new Error(`payment ${String(command.externalId)} conflicted but cannot be read`);
    return this.answerRetry(now, now.earlier, command);
  }

  private async readContext(tx: SqlTransaction | null, command: RegisterPaymentCommand): Promise<PaymentContext> {
    const context = await this.payments.context(tx, command.portfolioId, command.auth ?? null, command.debtorId, command.debtId ?? null, command.externalId ?? null);
    if (!context) throw AppError.notFound('portfolio');
    return context;
  }

  /**
   * Spec rules 1-2: the same request again is answered with the stored payment (nothing written,
   * no event); any field that differs is 409. Omitted method means transfer. An omitted currency
   * matches a payment whose currency was derived too; one the client named earlier matches if it is
   * what the currency would derive to now.
   */
  private answerRetry(context: PaymentContext, stored: StoredPayment, command: RegisterPaymentCommand): RegisterPaymentResult {
    const existing = stored.payment;
    const differing: string[] = [];
    if (existing.amount !== command.amount) differing.push('amount');
    if (!sameCurrency(context, stored, command)) differing.push('currency');
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
}

function sameCurrency(context: PaymentContext, stored: StoredPayment, command: RegisterPaymentCommand): boolean {
  const { payment } = stored;
  if (command.currency) return command.currency === payment.currency;
  if (stored.currencyDerived) return true;
  try {
    return deriveCurrency(context, command.debtId) === payment.currency;
  } catch {
    return false;
  }
}

/** The named debt's currency, else the single currency of the debtor's live debts, else the portfolio's main one. */
function deriveCurrency(context: PaymentContext, debtId: string | null | undefined): string {
  const currency = (debtId ? context.debtCurrency : null) ?? (context.debtCurrencies.length === 1 ? context.debtCurrencies[0] : context.identityCurrency[0]);
  if (!isIso4217(currency)) {
    throw AppError.validation('currency was omitted and cannot be derived from the debt, the debtor\'s live debts or the portfolio; send currency', [
      { message: 'currency is required for this payment', path: 'currency' },
    ]);
  }
  return currency;
}
