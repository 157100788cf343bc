import { Injectable } from '@nestjs/common';
import { AuthContext, PaymentSource, PaymentView, WebhookEventType } from '@dc/contracts';
import { Database, ReadRouter, isoDates, newId, Prisma, SqlTransaction, Stored } from '@dc/database';
import type { QueryResultRow } from 'pg';
import type { EventEmission } from '../outbox/event-emission';
import { EVENT_SOURCE_COLUMN, EventSource, outboxRowFromSql } from '../outbox/outbox.repository';
import { KeysetRows, keysetRows, reachableKeysetPageSql, reachablePortfolioSql, residual } from '../reach/reach.repository';
import { liveDebtCurrencyColumn, liveDebtorColumn } from '../shared/lookups.repository';

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

/**
 * Everything a registration decides on, read in one statement: the portfolio (null: missing, or
 * outside the key's reach), whether it emits events, the debtor and the named debt, the currencies
 * of the debtor's live debts, and the payment stored earlier under the same externalId.
 */
export interface PaymentContext {
  organizationId: string;
  identityCurrency: string[];
  eventSource: EventSource;
  debtorLive: boolean;
  /** The named debt's currency when it is a live debt of the debtor; null when not named or not found. */
  debtCurrency: string | null;
  /** Distinct currencies of the debtor's live debts, at most 2: enough to know whether there is one. */
  debtCurrencies: string[];
  earlier: StoredPayment | null;
}

/** A payment to insert, every field of its view known (its id and time are chosen by api-core). */
export interface PaymentInsert {
  payment: PaymentView;
  currencyDerived: boolean;
  source: PaymentSource;
  /** Its payment.registered outbox row (its id, and how eventEmission says to record it); null when the portfolio emits no events. */
  event: (EventEmission & { id: string }) | null;
}

/** A payment to register, before its id and its event's id are chosen (PaymentsRepository.insert). */
export interface PaymentDraft {
  /** The view's fields but the id, in the order the API answers them. */
  payment: Omit<PaymentView, 'id'>;
  currencyDerived: boolean;
  source: PaymentSource;
  event: EventEmission | null;
}

/** paymentContextSql's row: the context's fields, then the earlier payment's columns (all null without one). */
export type PaymentContextRow = Omit<PaymentContext, 'earlier'> & { currencyDerived: boolean | null } & { [K in keyof PaymentRow]: PaymentRow[K] | null };

/**
 * The registration's read: the portfolio (inside `reach` when given: a key's writes), the debtor,
 * the debt, the debtor's live currencies and the earlier payment with this externalId, in one row.
 * A null debtId or externalId matches nothing, so one text serves every request.
 */
export function paymentContextSql(portfolioId: string, reach: Prisma.Sql | null, debtorId: string, debtId: string | null, externalId: string | null): Prisma.Sql {
  return Prisma.sql`
    SELECT p.organization_id AS "organizationId", p.identity_currency AS "identityCurrency",
      ${EVENT_SOURCE_COLUMN},
      ${liveDebtorColumn(debtorId)}, ${liveDebtCurrencyColumn(debtorId, debtId)},
      ARRAY(SELECT DISTINCT dt.currency FROM debts dt WHERE dt.debtor_id = ${debtorId} AND dt.portfolio_id = p.id AND dt.deleted_at IS NULL ORDER BY 1 LIMIT 2) AS "debtCurrencies",
      ${PAYMENT_COLUMNS}, pay.currency_derived AS "currencyDerived"
    FROM portfolios p
    JOIN organizations o ON o.id = p.organization_id
    LEFT JOIN LATERAL (SELECT * FROM payments pay WHERE pay.portfolio_id = p.id AND pay.external_id = ${externalId}::text LIMIT 1) pay ON true
    WHERE p.id = ${portfolioId}${reach ? Prisma.sql` AND ${reach}` : Prisma.empty}`;
}

/**
 * The registration's write, one statement: the payment (ON CONFLICT DO NOTHING: the partial unique
 * index (portfolio_id, external_id) decides between parallel first attempts) and, only when it was
 * inserted, its outbox row, whose payload is the view's JSON text as the API answers it.
 * `inserted` is 0 when an earlier payment holds the externalId.
 */
export function insertPaymentSql({ payment, currencyDerived, source, event }: PaymentInsert): Prisma.Sql {
  const insert = Prisma.sql`
    INSERT INTO payments (id, external_id, portfolio_id, debtor_id, debt_id, promise_id, amount, currency, currency_derived,
      payment_date, payment_method, reference, source, created_at, updated_at)
    VALUES (${payment.id}, ${payment.externalId}, ${payment.portfolioId}, ${payment.debtorId}, ${payment.debtId}, ${payment.promiseId},
      ${payment.amount}, ${payment.currency}, ${currencyDerived}, ${payment.paymentDate}, ${payment.paymentMethod},
      ${payment.reference}, ${source}, ${payment.createdAt}::timestamptz, ${payment.updatedAt}::timestamptz)
    ON CONFLICT DO NOTHING
    RETURNING id`;
  if (!event) return Prisma.sql`WITH pay AS (${insert}) SELECT count(*)::int AS inserted FROM pay`;
  const outbox = outboxRowFromSql(Prisma.sql`pay`, { ...event, portfolioId: payment.portfolioId, type: WebhookEventType.PaymentRegistered, payload: payment });
  return Prisma.sql`WITH pay AS (${insert}), event AS (${outbox}) SELECT count(*)::int AS inserted FROM pay`;
}

/** The context as the use case reads it. */
export function paymentContextOf(row: PaymentContextRow): PaymentContext {
  const { organizationId, identityCurrency, eventSource, debtorLive, debtCurrency, debtCurrencies, currencyDerived } = row;
  const earlier: StoredPayment | null = row.id === null ? null : {
    payment: isoDates({
      id: row.id, externalId: row.externalId, portfolioId: row.portfolioId, debtorId: row.debtorId, debtId: row.debtId, promiseId: row.promiseId,
      amount: row.amount, currency: row.currency, paymentDate: row.paymentDate, paymentMethod: row.paymentMethod, reference: row.reference,
      createdAt: row.createdAt, updatedAt: row.updatedAt,
    } as PaymentRow),
    currencyDerived: currencyDerived === true,
  };
  return { organizationId, identityCurrency, eventSource, debtorLive, debtCurrency, debtCurrencies, earlier };
}

/** The only code that touches Prisma/SQL for payments. */
@Injectable()
export class PaymentsRepository {
  constructor(
    private readonly db: Database,
    /** Public list and by-id reads: a replica, or the primary (docs/adr/0050). */
    private readonly reads: ReadRouter,
  ) {}

  /**
   * The registration's read (paymentContextSql); null when the portfolio is missing or outside the
   * reach of `auth` (a key's registration; null: any portfolio). On the pool as a prepared
   * statement, or in the caller's transaction (`tx`).
   */
  async context(tx: SqlTransaction | null, portfolioId: string, auth: AuthContext | null, debtorId: string, debtId: string | null, externalId: string | null): Promise<PaymentContext | null> {
    const reach = auth ? reachablePortfolioSql(auth) : null;
    const [row] = await this.rows<PaymentContextRow>(tx, paymentContextSql(portfolioId, reach, debtorId, debtId, externalId));
    return row ? paymentContextOf(row) : null;
  }

  /**
   * The registration's write (insertPaymentSql), the payment's and its event's ids chosen here:
   * the payment as stored and answered, or null when an earlier payment holds the externalId. On
   * the pool, the WAL position of its commit is read in the same round trip and recorded for the
   * reads of `writer`, the API key whose write it is, before this returns (docs/adr/0050); in the
   * caller's transaction (`tx`), the caller commits.
   */
  async insert(tx: SqlTransaction | null, draft: PaymentDraft, writer: string | null): Promise<PaymentView | null> {
    const payment: PaymentView = { id: newId('pay'), ...draft.payment };
    const event = draft.event && { id: newId('evt'), ...draft.event };
    const sql = insertPaymentSql({ payment, currencyDerived: draft.currencyDerived, source: draft.source, event });
    if (tx) return (await tx.query<{ inserted: number }>(sql))[0].inserted === 1 ? payment : null;
    const { result, lsn } = await this.db.preparedCommitted<{ inserted: number }>(sql);
    if (writer) await this.reads.wrote(writer, lsn);
    return result[0].inserted === 1 ? payment : null;
  }

  private rows<T extends QueryResultRow>(tx: SqlTransaction | null, sql: Prisma.Sql): Promise<T[]> {
    return tx ? tx.query<T>(sql) : this.db.prepared<T>(sql);
  }

  /**
   * One keyset page (limit + 1 rows, id order) of the payments the key can reach. from/to are
   * compared as text in byte order (COLLATE "C"), spec list rule 8: a date-only bound sorts before
   * every date-time of that day.
   */
  async listReachable(auth: AuthContext, filter: PaymentListFilter, afterId: string | null, take: number): Promise<KeysetRows<PaymentView>> {
    return keysetRows((await this.reads.prepared<PaymentRow>(auth.apiKeyId, paymentsPageSql(auth, filter, afterId, take))).map(isoDates));
  }

  async findReachable(auth: AuthContext, id: string): Promise<PaymentView | null> {
    const [row] = await this.reads.prepared<PaymentRow>(auth.apiKeyId, paymentByIdSql(auth, id));
    return row ? isoDates(row) : null;
  }
}
