import { Injectable } from '@nestjs/common';
import { AuthContext, DebtStatus, DebtView } from '@dc/contracts';
import { ReadRouter, isoDates, Prisma, Stored } from '@dc/database';
import { KeysetKey, KeysetRows, keysetRows, reachableKeysetPageSql, residual } from '../reach/reach.repository';

export interface DebtListFilter {
  portfolioId?: string;
  debtorId?: string;
  status?: DebtStatus;
}

/** A debt as its SQL returns it: the DebtView, timestamps still Date. */
type DebtRow = Stored<DebtView, 'createdAt' | 'updatedAt'>;

/** debts columns named as DebtView's fields, in its order; amounts are numeric, sent as JSON numbers. */
const DEBT_COLUMNS = Prisma.raw(`t.id, t.portfolio_id AS "portfolioId", t.debtor_id AS "debtorId", t.external_id AS "externalId",
  t.total_amount::float8 AS "totalAmount", t.paid_amount::float8 AS "paidAmount", t.currency, t.status, t.due_date AS "dueDate",
  t.issue_date AS "issueDate", t.description, t.debt_type AS "debtType", t.created_at AS "createdAt", t.updated_at AS "updatedAt"`);

/**
 * Reachable debts in one statement: inside the key's reach, the debt live and its debtor live (a
 * deleted or erased debtor hides its debts), filters, keyset (reachableKeysetPageSql).
 */
export function reachableDebtsSql(auth: AuthContext, filter: DebtListFilter & { id?: string }, afterId: string | null, take: number): Prisma.Sql {
  // The page's key (docs/adr/0023) is the first filter given of: the id (primary key), the debtor
  // (its few debts, debts_debtor_id_portfolio_id_id_idx), the status (debts_live_status_portfolio_id_id_idx);
  // none: debts_live_portfolio_id_id_idx. The others are residual filters: the page is then a
  // capped scan (docs/adr/0042).
  let key: KeysetKey | undefined;
  const conditions: Prisma.Sql[] = [];
  for (const [column, value] of [['id', filter.id], ['debtor_id', filter.debtorId], ['status', filter.status]] as const) {
    if (value === undefined) continue;
    if (key) conditions.push(residual(Prisma.sql`t.${Prisma.raw(column)} = ${value}`));
    else key = { column, values: [value] };
  }
  // The debtor's liveness as a residual: checked on the row its primary key finds, never the
  // reason to scan a live-debtors index (with no statistics that looked as cheap as the probe).
  // LATERAL … OFFSET 0 (not flattened into a join) keeps it a probe per debt the scan reads: as a
  // plain join, once a keyed page's estimate stopped following the key's statistics, the planner
  // hashed every live debtor of the table for a debtor's two debts (docs/adr/0042).
  const debtorLive = residual(Prisma.sql`d.deleted_at IS NULL AND d.erased_at IS NULL`);
  const from = Prisma.sql`debts t CROSS JOIN LATERAL (SELECT FROM debtors d WHERE d.id = t.debtor_id AND ${debtorLive} OFFSET 0) d`;
  const live = Prisma.sql`t.deleted_at IS NULL`;
  return reachableKeysetPageSql(auth, { columns: DEBT_COLUMNS, from, alias: 't', live, key, conditions, portfolioId: filter.portfolioId, afterId, take });
}

@Injectable()
export class DebtsRepository {
  /** Public list and by-id reads: a replica, or the primary (docs/adr/0050). */
  constructor(private readonly reads: ReadRouter) {}

  /** One keyset page (limit + 1 rows, id order) of the debts the key can reach. */
  async listReachable(auth: AuthContext, filter: DebtListFilter, afterId: string | null, take: number): Promise<KeysetRows<DebtView>> {
    return keysetRows((await this.reads.prepared<DebtRow>(auth.apiKeyId, reachableDebtsSql(auth, filter, afterId, take))).map(isoDates));
  }

  async findReachable(auth: AuthContext, id: string): Promise<DebtView | null> {
    const [row] = await this.reads.prepared<DebtRow>(auth.apiKeyId, reachableDebtsSql(auth, { id }, null, 1));
    return row ? isoDates(row) : null;
  }
}
