import { Injectable } from '@nestjs/common';
import { AuthContext, PaymentSource } from '@dc/contracts';
import { Database, newId, Prisma } from '@dc/database';
import type { Tx } from '../outbox/outbox.writer';
import { reachablePortfolioWhere } from '../reach/portfolio-reach';
import { reachableKeysetPageSql, reachablePortfolioSql } from '../reach/reachable-sql';
import { PaymentRow } from './payment.mapper';

/** What registering a payment needs to know about its portfolio. */
export interface PaymentPortfolio {
  id: string;
  organizationId: string;
  identityCurrency: string[];
}

export interface NewPayment {
  externalId: string | null;
  portfolioId: string;
  debtorId: string;
  debtId: string | null;
  promiseId: string | null;
  amount: number;
  currency: string;
  /** The client omitted currency and it was derived. */
  currencyDerived: boolean;
  paymentDate: string;
  paymentMethod: string;
  reference: string | null;
  source: PaymentSource;
}

export interface PaymentListFilter {
  portfolioId?: string;
  debtorId?: string;
  from?: string;
  to?: string;
}

const PORTFOLIO_SELECT = { id: true, organizationId: true, identityCurrency: true } as const;

// Raw reads alias every column to the model's field names, so the mapper serves both paths.
const PAYMENT_COLUMNS = Prisma.sql`
  pay.id, pay.external_id AS "externalId", pay.portfolio_id AS "portfolioId", pay.debtor_id AS "debtorId",
  pay.debt_id AS "debtId", pay.promise_id AS "promiseId", pay.amount, pay.currency,
  pay.payment_date AS "paymentDate", pay.payment_method AS "paymentMethod", pay.reference,
  pay.created_at AS "createdAt", pay.updated_at AS "updatedAt"`;

/** One keyset page (limit + 1 rows, id order) of the payments the key can reach, filters applied. */
export function paymentsPageSql(auth: AuthContext, filter: PaymentListFilter, afterId: string | null, take: number): Prisma.Sql {
  const conditions: Prisma.Sql[] = [];
  if (filter.debtorId !== undefined) conditions.push(Prisma.sql`pay.debtor_id = ${filter.debtorId}`);
  if (filter.from !== undefined) conditions.push(Prisma.sql`pay.payment_date COLLATE "C" >= ${filter.from}`);
  if (filter.to !== undefined) conditions.push(Prisma.sql`pay.payment_date COLLATE "C" <= ${filter.to}`);
  const page = { columns: PAYMENT_COLUMNS, from: Prisma.sql`payments pay`, alias: 'pay', conditions, portfolioId: filter.portfolioId, afterId, take };
  return reachableKeysetPageSql(auth, page);
}

/** The only code that touches Prisma/SQL for payments. */
@Injectable()
export class PaymentsRepository {
  constructor(private readonly db: Database) {}

  inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.client.$transaction(fn);
  }

  findReachablePortfolio(auth: AuthContext, id: string): Promise<PaymentPortfolio | null> {
    return this.db.client.portfolio.findFirst({ where: { AND: [reachablePortfolioWhere(auth), { id }] }, select: PORTFOLIO_SELECT });
  }

  /** Operator intake: any existing portfolio (the operator is not bound by a key's reach). */
  findPortfolio(id: string): Promise<PaymentPortfolio | null> {
    return this.db.client.portfolio.findUnique({ where: { id }, select: PORTFOLIO_SELECT });
  }

  /** A live (neither deleted nor erased) debtor of the portfolio. */
  async liveDebtorExists(tx: Tx, portfolioId: string, debtorId: string): Promise<boolean> {
    const row = await tx.debtor.findFirst({ where: { id: debtorId, portfolioId, deletedAt: null, erasedAt: null }, select: { id: true } });
    return row !== null;
  }

  /** A live (not deleted) debt of that debtor in that portfolio. */
  findLiveDebt(tx: Tx, portfolioId: string, debtorId: string, debtId: string): Promise<{ id: string; currency: string } | null> {
    return tx.debt.findFirst({ where: { id: debtId, debtorId, portfolioId, deletedAt: null }, select: { id: true, currency: true } });
  }

  /** Distinct currencies of the debtor's live debts (at most 2 are needed to know it is not single). */
  async liveDebtCurrencies(tx: Tx, portfolioId: string, debtorId: string): Promise<string[]> {
    const rows = await tx.debt.findMany({
      where: { debtorId, portfolioId, deletedAt: null },
      distinct: ['currency'],
      select: { currency: true },
      orderBy: { currency: 'asc' },
      take: 2,
    });
    return rows.map((r) => r.currency);
  }

  /**
   * INSERT … ON CONFLICT DO NOTHING: the partial unique index (portfolio_id, external_id) decides
   * between parallel retries. Returns the new row, or null when the externalId already exists
   * (the conflicting transaction has committed by then, so a following read sees its row).
   */
  async insertUnlessExists(tx: Tx, payment: NewPayment): Promise<PaymentRow | null> {
    const rows = await tx.payment.createManyAndReturn({ data: [{ id: newId('pay'), ...payment }], skipDuplicates: true });
    return rows[0] ?? null;
  }

  findByExternalId(tx: Tx, portfolioId: string, externalId: string): Promise<PaymentRow | null> {
    return tx.payment.findFirst({ where: { portfolioId, externalId } });
  }

  /**
   * One keyset page (limit + 1 rows, id order) of the payments the key can reach. from/to are
   * compared as text in byte order (COLLATE "C"), spec list rule 8: a date-only bound sorts before
   * every date-time of that day.
   */
  listReachable(auth: AuthContext, filter: PaymentListFilter, afterId: string | null, take: number): Promise<PaymentRow[]> {
    return this.db.client.$queryRaw<PaymentRow[]>(paymentsPageSql(auth, filter, afterId, take));
  }

  async findReachable(auth: AuthContext, id: string): Promise<PaymentRow | null> {
    const rows = await this.db.client.$queryRaw<PaymentRow[]>`
      SELECT ${PAYMENT_COLUMNS}
      FROM payments pay JOIN portfolios p ON p.id = pay.portfolio_id
      WHERE pay.id = ${id} AND ${reachablePortfolioSql(auth)}`;
    return rows[0] ?? null;
  }
}
