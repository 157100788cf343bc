import { Injectable } from '@nestjs/common';
import { AuthContext, PromiseStatus, PromiseView, WebhookEventType } from '@dc/contracts';
import { Database, ReadRouter, isoDates, newId, Prisma, SqlTransaction, Stored } from '@dc/database';
import type { EventEmission } from '../outbox/event-emission';
import { EVENT_SOURCE_COLUMN, EventSource, outboxRowFromSql } from '../outbox/outbox.repository';
import { KeysetKey, KeysetRows, keysetRows, reachableKeysetPageSql, residual } from '../reach/reach.repository';
import { liveDebtCurrencyColumn, liveDebtorColumn } from '../shared/lookups.repository';

export interface PromiseListFilter {
  portfolioId?: string;
  debtorId?: string;
  statuses?: string[];
}

/** What a promise's intake decides on, read in one statement (promiseContextSql). */
export interface PromiseContext {
  organizationId: string;
  identityCurrency: string[];
  eventSource: EventSource;
  debtorLive: boolean;
  /** The named debt's currency when it is a live debt of the debtor; null when not named or not found. */
  debtCurrency: string | null;
  /** The named call is one of the debtor's in the portfolio (false when none is named). */
  callFound: boolean;
}

/** The intake's read: the portfolio (any: the operator's), its event source, the debtor, the debt and the call, in one row. */
export function promiseContextSql(portfolioId: string, debtorId: string, debtId: string | null, callId: string | null): Prisma.Sql {
  return Prisma.sql`
    SELECT p.organization_id AS "organizationId", p.identity_currency AS "identityCurrency", ${EVENT_SOURCE_COLUMN},
      ${liveDebtorColumn(debtorId)}, ${liveDebtCurrencyColumn(debtorId, debtId)},
      EXISTS (SELECT 1 FROM calls cl WHERE cl.id = ${callId}::text AND cl.portfolio_id = p.id AND cl.debtor_id = ${debtorId}) AS "callFound"
    FROM portfolios p
    JOIN organizations o ON o.id = p.organization_id
    WHERE p.id = ${portfolioId}`;
}

/**
 * The intake's write, one statement: the promise and, when the portfolio emits events, its
 * promise.created outbox row, whose payload is the view's JSON text as the API answers it.
 */
export function insertPromiseSql(promise: PromiseView, event: (EventEmission & { id: string }) | null): Prisma.Sql {
  const insert = Prisma.sql`
    INSERT INTO promises (id, portfolio_id, debtor_id, debt_id, call_id, amount, currency, promise_date, status, created_at, updated_at)
    VALUES (${promise.id}, ${promise.portfolioId}, ${promise.debtorId}, ${promise.debtId}, ${promise.callId}, ${promise.amount},
      ${promise.currency}, ${promise.promiseDate}, ${promise.status}, ${promise.createdAt}::timestamptz, ${promise.updatedAt}::timestamptz)
    RETURNING id`;
  if (!event) return insert;
  const outbox = outboxRowFromSql(Prisma.sql`created`, { ...event, portfolioId: promise.portfolioId, type: WebhookEventType.PromiseCreated, payload: promise });
  return Prisma.sql`WITH created AS (${insert}), event AS (${outbox}) SELECT id FROM created`;
}

/** The promise being moved, locked for the rest of the transaction, with its organization. */
export type LockedPromise = PromiseView & { organizationId: string };

/** A promise as its SQL returns it: the PromiseView, timestamps still Date. */
type PromiseRow = Stored<PromiseView, 'createdAt' | 'updatedAt'>;

/** promises columns named as PromiseView's fields, in its order; the amount is numeric, sent as a JSON number. */
const COLUMNS = Prisma.sql`
  pr.id, pr.portfolio_id AS "portfolioId", pr.debtor_id AS "debtorId", pr.debt_id AS "debtId", pr.call_id AS "callId",
  pr.amount::float8 AS amount, pr.currency, pr.promise_date AS "promiseDate", pr.status, pr.payment_id AS "paymentId",
  pr.fulfillment_date AS "fulfillmentDate", pr.created_at AS "createdAt", pr.updated_at AS "updatedAt"`;

/**
 * One keyset page (limit + 1 rows, id order) of the promises the key can reach, filters applied.
 * The page's key (docs/adr/0023): the debtor (promises_debtor_id_portfolio_id_id_idx), else the
 * statuses, one scan each (promises_status_portfolio_id_id_idx); with both, the statuses are
 * residual and the page a capped scan of the debtor's promises (docs/adr/0042).
 */
export function promisesPageSql(auth: AuthContext, filter: PromiseListFilter, afterId: string | null, take: number): Prisma.Sql {
  let key: KeysetKey | undefined;
  const conditions: Prisma.Sql[] = [];
  if (filter.debtorId !== undefined) key = { column: 'debtor_id', values: [filter.debtorId] };
  if (filter.statuses?.length) {
    if (key) conditions.push(residual(Prisma.sql`pr.status = ANY(${filter.statuses}::text[])`));
    else key = { column: 'status', values: filter.statuses };
  }
  const page = { columns: COLUMNS, from: Prisma.sql`promises pr`, alias: 'pr', partitionedById: true, key, conditions, portfolioId: filter.portfolioId, afterId, take };
  return reachableKeysetPageSql(auth, page);
}

/** The only code that touches Prisma/SQL for promises. */
@Injectable()
export class PromisesRepository {
  constructor(
    private readonly db: Database,
    /** Public list and by-id reads: a replica, or the primary (docs/adr/0050). */
    private readonly reads: ReadRouter,
  ) {}

  /** One keyset page (limit + 1 rows, id order) of the promises the key can reach. */
  async listReachable(auth: AuthContext, filter: PromiseListFilter, afterId: string | null, take: number): Promise<KeysetRows<PromiseView>> {
    return keysetRows((await this.reads.prepared<PromiseRow>(auth.apiKeyId, promisesPageSql(auth, filter, afterId, take))).map(isoDates));
  }

  /** The intake's read (promiseContextSql); null when the portfolio does not exist. */
  async context(portfolioId: string, debtorId: string, debtId: string | null, callId: string | null): Promise<PromiseContext | null> {
    const [context] = await this.db.prepared<PromiseContext>(promiseContextSql(portfolioId, debtorId, debtId, callId));
    return context ?? null;
  }

  /** A new promise (insertPromiseSql), its id and its event's chosen here. */
  async insert(draft: Omit<PromiseView, 'id'>, event: EventEmission | null): Promise<PromiseView> {
    const promise: PromiseView = { id: newId('prm'), ...draft };
    await this.db.prepared(insertPromiseSql(promise, event && { id: newId('evt'), ...event }));
    return promise;
  }

  /** A promise's move, in one transaction through `pg` (no ORM round trips): lock, change, and for a fulfilment its payment. */
  transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    return this.db.sqlTransaction(fn);
  }

  /** Locks the promise (SELECT … FOR UPDATE) so two moves of one promise cannot both succeed. */
  async lock(tx: SqlTransaction, id: string): Promise<LockedPromise | null> {
    const [row] = await tx.query<PromiseRow & { organizationId: string }>(Prisma.sql`
      SELECT ${COLUMNS}, p.organization_id AS "organizationId"
      FROM promises pr JOIN portfolios p ON p.id = pr.portfolio_id
      WHERE pr.id = ${id}
      FOR UPDATE OF pr`);
    return row ? isoDates(row) : null;
  }

  setStatus(tx: SqlTransaction, id: string, status: PromiseStatus): Promise<PromiseView> {
    return this.change(tx, id, Prisma.sql`status = ${status}`);
  }

  markFulfilled(tx: SqlTransaction, id: string, paymentId: string, fulfillmentDate: string): Promise<PromiseView> {
    return this.change(tx, id, Prisma.sql`status = 'fulfilled', payment_id = ${paymentId}, fulfillment_date = ${fulfillmentDate}`);
  }

  private async change(tx: SqlTransaction, id: string, sets: Prisma.Sql): Promise<PromiseView> {
    const [row] = await tx.query<PromiseRow>(Prisma.sql`
      UPDATE promises AS pr SET ${sets}, updated_at = ${new Date()}
      WHERE pr.id = ${id}
      RETURNING ${COLUMNS}`);
    if (!row) throw new Error(`promise ${id} vanished while locked`);
    return isoDates(row);
  }
}
