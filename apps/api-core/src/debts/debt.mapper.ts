import { DebtView } from '@dc/contracts';

/** numeric columns arrive as exact decimal strings (pg); JSON carries numbers. */
export interface DebtRow {
  id: string;
  portfolioId: string;
  debtorId: string;
  externalId: string;
  totalAmount: string;
  paidAmount: string;
  currency: string;
  status: string;
  dueDate: string | null;
  issueDate: string | null;
  description: string | null;
  debtType: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toDebtView(row: DebtRow): DebtView {
  return {
    id: row.id,
    portfolioId: row.portfolioId,
    debtorId: row.debtorId,
    externalId: row.externalId,
    totalAmount: Number(row.totalAmount),
    paidAmount: Number(row.paidAmount),
    currency: row.currency,
    status: row.status,
    dueDate: row.dueDate,
    issueDate: row.issueDate,
    description: row.description,
    debtType: row.debtType,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
