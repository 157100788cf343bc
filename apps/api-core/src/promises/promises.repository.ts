import { Injectable } from '@nestjs/common';
import { AuthContext, PromiseStatus } from '@dc/contracts';
import { Database, newId, Prisma } from '@dc/database';
import type { Tx } from '../outbox/outbox.writer';
import { IntakePortfolio, reachableKeysetPageSql } from '../reach/reachable-sql';
import { PromiseRow } from './promise.mapper';

export interface PromiseListFilter {
  portfolioId?: string;
  debtorId?: string;
  statuses?: string[];
}

export interface NewPromise {
  portfolioId: string;
  debtorId: string;
  debtId: string | null;
  callId: string | null;
  amount: number;
  currency: string;
  promiseDate: string;
}

const COLUMNS = Prisma.sql`
  pr.id, pr.portfolio_id AS "portfolioId", pr.debtor_id AS "debtorId", pr.debt_id AS "debtId", pr.call_id AS "callId",
  pr.amount, pr.currency, pr.promise_date AS "promiseDate", pr.status, pr.payment_id AS "paymentId",
  pr.fulfillment_date AS "fulfillmentDate", pr.created_at AS "createdAt", pr.updated_at AS "updatedAt"`;

const PORTFOLIO_SELECT = { id: true, organizationId: true, identityCurrency: true } as const;

/** One keyset page (limit + 1 rows, id order) of the promises the key can reach, filters applied. */
export function promisesPageSql(auth: AuthContext, filter: PromiseListFilter, afterId: string | null, take: number): Prisma.Sql {
  const conditions: Prisma.Sql[] = [];
  if (filter.debtorId !== undefined) conditions.push(Prisma.sql`pr.debtor_id = ${filter.debtorId}`);
  if (filter.statuses?.length) conditions.push(Prisma.sql`pr.status = ANY(${filter.statuses}::text[])`);
  const page = { columns: COLUMNS, from: Prisma.sql`promises pr`, alias: 'pr', conditions, portfolioId: filter.portfolioId, afterId, take };
  return reachableKeysetPageSql(auth, page);
}

/** The only code that touches Prisma/SQL for promises. */
@Injectable()
export class PromisesRepository {
  constructor(private readonly db: Database) {}

  inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.client.$transaction(fn);
  }

  /** One keyset page (limit + 1 rows, id order) of the promises the key can reach. */
  listReachable(auth: AuthContext, filter: PromiseListFilter, afterId: string | null, take: number): Promise<PromiseRow[]> {
    return this.db.client.$queryRaw<PromiseRow[]>(promisesPageSql(auth, filter, afterId, take));
  }

  /** Operator intake: any existing portfolio (the operator is not bound by a key's reach). */
  findPortfolio(tx: Tx, id: string): Promise<IntakePortfolio | null> {
    return tx.portfolio.findUnique({ where: { id }, select: PORTFOLIO_SELECT });
  }

  async liveDebtorExists(tx: Tx, portfolioId: string, debtorId: string): Promise<boolean> {
    const row = await tx.debtor.findFirst({ where: { id: debtorId, portfolioId, deletedAt: null, erasedAt: null }, select: { id: true } });
    return row !== null;
  }

  /** A live debt of that debtor in that portfolio. */
  findLiveDebt(tx: Tx, portfolioId: string, debtorId: string, debtId: string): Promise<{ id: string; currency: string } | null> {
    return tx.debt.findFirst({ where: { id: debtId, debtorId, portfolioId, deletedAt: null }, select: { id: true, currency: true } });
  }

  /** A call of that debtor in that portfolio. */
  async callExists(tx: Tx, portfolioId: string, debtorId: string, callId: string): Promise<boolean> {
    return (await tx.call.findFirst({ where: { id: callId, portfolioId, debtorId }, select: { id: true } })) !== null;
  }

  insert(tx: Tx, promise: NewPromise): Promise<PromiseRow> {
    return tx.paymentPromise.create({ data: { id: newId('prm'), ...promise, status: 'pending' } });
  }

  /** Locks the promise (SELECT … FOR UPDATE) so two moves of one promise cannot both succeed. */
  async lock(tx: Tx, id: string): Promise<(PromiseRow & { organizationId: string }) | null> {
    const rows = await tx.$queryRaw<(PromiseRow & { organizationId: string })[]>`
      SELECT ${COLUMNS}, p.organization_id AS "organizationId"
      FROM promises pr JOIN portfolios p ON p.id = pr.portfolio_id
      WHERE pr.id = ${id}
      FOR UPDATE OF pr`;
    return rows[0] ?? null;
  }

  setStatus(tx: Tx, id: string, status: PromiseStatus): Promise<PromiseRow> {
    return tx.paymentPromise.update({ where: { id }, data: { status } });
  }

  markFulfilled(tx: Tx, id: string, paymentId: string, fulfillmentDate: string): Promise<PromiseRow> {
    return tx.paymentPromise.update({ where: { id }, data: { status: 'fulfilled', paymentId, fulfillmentDate } });
  }
}
