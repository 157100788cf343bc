import { PaymentView } from '@dc/contracts';

/** A payments row as Prisma returns it (model or raw query with camelCase aliases). */
export interface PaymentRow {
  id: string;
  externalId: string | null;
  portfolioId: string;
  debtorId: string;
  debtId: string | null;
  promiseId: string | null;
  /** Prisma Decimal (numeric(19, 4)); its string form is exact. */
  amount: { toString(): string };
  currency: string;
  /** Only on reads of the whole row (the retry check); list and by-id reads do not select it. */
  currencyDerived?: boolean;
  paymentDate: string;
  paymentMethod: string;
  reference: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toPaymentView(row: PaymentRow): PaymentView {
  return {
    id: row.id,
    externalId: row.externalId,
    portfolioId: row.portfolioId,
    debtorId: row.debtorId,
    debtId: row.debtId,
    promiseId: row.promiseId,
    amount: Number(row.amount.toString()),
    currency: row.currency,
    paymentDate: row.paymentDate,
    paymentMethod: row.paymentMethod,
    reference: row.reference,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
