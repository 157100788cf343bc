import { PromiseView } from '@dc/contracts';

/** A promises row as Prisma returns it (model or raw query with camelCase aliases). */
export interface PromiseRow {
  id: string;
  portfolioId: string;
  debtorId: string;
  debtId: string | null;
  callId: string | null;
  /** Prisma Decimal (numeric(19, 4)); its string form is exact. */
  amount: { toString(): string };
  currency: string;
  promiseDate: string;
  status: string;
  paymentId: string | null;
  fulfillmentDate: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toPromiseView(row: PromiseRow): PromiseView {
  return {
    id: row.id,
    portfolioId: row.portfolioId,
    debtorId: row.debtorId,
    debtId: row.debtId,
    callId: row.callId,
    amount: Number(row.amount.toString()),
    currency: row.currency,
    promiseDate: row.promiseDate,
    status: row.status,
    paymentId: row.paymentId,
    fulfillmentDate: row.fulfillmentDate,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
