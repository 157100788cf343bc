import { Injectable } from '@nestjs/common';
import { AuthContext, DebtStatus } from '@dc/contracts';
import { Database, Prisma } from '@dc/database';
import { reachableKeysetPageSql } from '../reach/reachable-sql';
import { DebtRow } from './debt.mapper';

export interface DebtListFilter {
  portfolioId?: string;
  debtorId?: string;
  status?: DebtStatus;
}

const DEBT_COLUMNS = Prisma.raw(`t.id, t.portfolio_id AS "portfolioId", t.debtor_id AS "debtorId", t.external_id AS "externalId",
  t.total_amount AS "totalAmount", t.paid_amount AS "paidAmount", t.currency, t.status, t.due_date AS "dueDate",
  t.issue_date AS "issueDate", t.description, t.debt_type AS "debtType", t.created_at AS "createdAt", t.updated_at AS "updatedAt"`);

/**
 * Readable debts in one statement: inside the key's reach, the debt live and its debtor live (a
 * deleted or erased debtor hides its debts), filters, keyset (reachableKeysetPageSql).
 */
export function readableDebtsSql(auth: AuthContext, filter: DebtListFilter & { id?: string }, afterId: string | null, take: number): Prisma.Sql {
  const conditions = [Prisma.sql`t.deleted_at IS NULL`];
  if (filter.debtorId !== undefined) conditions.push(Prisma.sql`t.debtor_id = ${filter.debtorId}`);
  if (filter.status !== undefined) conditions.push(Prisma.sql`t.status = ${filter.status}`);
  if (filter.id !== undefined) conditions.push(Prisma.sql`t.id = ${filter.id}`);
  const from = Prisma.sql`debts t JOIN debtors d ON d.id = t.debtor_id AND d.deleted_at IS NULL AND d.erased_at IS NULL`;
  return reachableKeysetPageSql(auth, { columns: DEBT_COLUMNS, from, alias: 't', conditions, portfolioId: filter.portfolioId, afterId, take });
}

@Injectable()
export class DebtsRepository {
  constructor(private readonly db: Database) {}

  /** One keyset page (limit + 1 rows, id order) of readable debts. */
  listReadable(auth: AuthContext, filter: DebtListFilter, afterId: string | null, take: number): Promise<DebtRow[]> {
    return this.db.prepared<DebtRow>(readableDebtsSql(auth, filter, afterId, take));
  }

  async findReadable(auth: AuthContext, id: string): Promise<DebtRow | null> {
    return (await this.db.prepared<DebtRow>(readableDebtsSql(auth, { id }, null, 1)))[0] ?? null;
  }
}
