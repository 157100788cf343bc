import { Injectable } from '@nestjs/common';
import { AuthContext, PaymentSource, PaymentView } from '@dc/contracts';
import { Database, isoDates, newId, Prisma, Stored, Tx } from '@dc/database';
import { KeysetRows, keysetRows, reachableKeysetPageSql, reachablePortfolioSql, residual } from '../reach/reach.repository';

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

/** A stored payment as a retry compares it: the view, and whether its currency was derived. */
export interface StoredPayment {
  payment: PaymentView;
  currencyDerived: boolean;
}

export interface PaymentListFilter {
  portfolioId?: string;
  debtorId?: string;
  from?: string;
  to?: string;
}

/** A payment as its SQL returns it: the PaymentView, timestamps still Date. */
type PaymentRow = Stored<PaymentView, 'createdAt' | 'updatedAt'>;

/** payments columns named as PaymentView's fields, in its order; the amount is numeric, sent as a JSON number. */
const PAYMENT_COLUMNS = Prisma.sql`
  pay.id, pay.external_id AS "externalId", pay.portfolio_id AS "portfolioId", pay.debtor_id AS "debtorId",
  pay.debt_id AS "debtId", pay.promise_id AS "promiseId", pay.amount::float8 AS amount, pay.currency,
  pay.payment_date AS "paymentDate", pay.payment_method AS "paymentMethod", pay.reference,
  pay.created_at AS "createdAt", pay.updated_at AS "updatedAt"`;

/**
 * One keyset page (limit + 1 rows, id order) of the payments the key can reach, filters applied:
 * the debtor is the page's key (payments_debtor_id_portfolio_id_id_idx), from/to residual filters
 * (a business date unrelated to id order): the page is then a capped scan, short when the cap
 * stops it (docs/adr/0042).
 */
export function paymentsPageSql(auth: AuthContext, filter: PaymentListFilter, afterId: string | null, take: number): Prisma.Sql {
  const key = filter.debtorId !== undefined ? { column: 'debtor_id', values: [filter.debtorId] } : undefined;
  const conditions: Prisma.Sql[] = [];
  if (filter.from !== undefined) conditions.push(residual(Prisma.sql`pay.payment_date COLLATE "C" >= ${filter.from}`));
  if (filter.to !== undefined) conditions.push(residual(Prisma.sql`pay.payment_date COLLATE "C" <= ${filter.to}`));
  const page = { columns: PAYMENT_COLUMNS, from: Prisma.sql`payments pay`, alias: 'pay', key, conditions, portfolioId: filter.portfolioId, afterId, take };
  return reachableKeysetPageSql(auth, page);
}

/** A payment by id (primary key) inside the key's reach. */
export function paymentByIdSql(auth: AuthContext, id: string): Prisma.Sql {
  return Prisma.sql`
    SELECT ${PAYMENT_COLUMNS}
    FROM payments pay JOIN portfolios p ON p.id = pay.portfolio_id
    WHERE pay.id = ${id} AND ${reachablePortfolioSql(auth)}`;
}

/** The only code that touches Prisma/SQL for payments. */
@Injectable()
export class PaymentsRepository {
  constructor(private readonly db: Database) {}

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
   * between parallel retries. Returns the new payment, or null when the externalId already exists
   * (the conflicting transaction has committed by then, so a following read sees its row). Both
   * timestamps are the time of the write.
   */
  async insertUnlessExists(tx: Tx, payment: NewPayment): Promise<PaymentView | null> {
    const now = new Date();
    const [row] = await tx.$queryRaw<PaymentRow[]>`
      INSERT INTO payments AS pay (id, external_id, portfolio_id, debtor_id, debt_id, promise_id, amount, currency, currency_derived,
        payment_date, payment_method, reference, source, created_at, updated_at)
      VALUES (${newId('pay')}, ${payment.externalId}, ${payment.portfolioId}, ${payment.debtorId}, ${payment.debtId}, ${payment.promiseId},
        ${payment.amount}, ${payment.currency}, ${payment.currencyDerived}, ${payment.paymentDate}, ${payment.paymentMethod},
        ${payment.reference}, ${payment.source}, ${now}, ${now})
      ON CONFLICT DO NOTHING
      RETURNING ${PAYMENT_COLUMNS}`;
    return row ? isoDates(row) : null;
  }

  async findByExternalId(tx: Tx, portfolioId: string, externalId: string): Promise<StoredPayment | null> {
    const [row] = await tx.$queryRaw<(PaymentRow & { currencyDerived: boolean })[]>`
      SELECT ${PAYMENT_COLUMNS}, pay.currency_derived AS "currencyDerived"
      FROM payments pay
      WHERE pay.portfolio_id = ${portfolioId} AND pay.external_id = ${externalId}
      LIMIT 1`;
    if (!row) return null;
    const { currencyDerived, ...payment } = isoDates(row);
    return { payment, currencyDerived };
  }

  /**
   * One keyset page (limit + 1 rows, id order) of the payments the key can reach. from/to are
   * compared as text in byte order (COLLATE "C"), spec list rule 8: a date-only bound sorts before
   * every date-time of that day.
   */
  async listReachable(auth: AuthContext, filter: PaymentListFilter, afterId: string | null, take: number): Promise<KeysetRows<PaymentView>> {
    return keysetRows((await this.db.prepared<PaymentRow>(paymentsPageSql(auth, filter, afterId, take))).map(isoDates));
  }

  async findReachable(auth: AuthContext, id: string): Promise<PaymentView | null> {
    const [row] = await this.db.prepared<PaymentRow>(paymentByIdSql(auth, id));
    return row ? isoDates(row) : null;
  }
}
