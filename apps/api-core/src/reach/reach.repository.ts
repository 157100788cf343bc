import { AuthContext } from '@dc/contracts';
import { Prisma } from '@dc/database';

/**
 * The reach rule, written once: the portfolios a key can see are the active portfolios of its
 * organization, narrowed by the key's restriction. Everything outside answers 404 or is absent from
 * lists — the same as missing. For queries that join `portfolios p`; every public read and every
 * public write's portfolio lookup goes through it.
 */
export function reachablePortfolioSql(auth: AuthContext): Prisma.Sql {
  const restriction = auth.portfolioIds.length ? Prisma.sql`AND p.id = ANY(${auth.portfolioIds}::text[])` : Prisma.empty;
  return Prisma.sql`p.organization_id = ${auth.organizationId} AND p.status = 'active' ${restriction}`;
}

/** One keyset page of a portfolio-scoped table; `alias` names the table in `from`, `columns` and `conditions`. */
export interface KeysetPageQuery {
  columns: Prisma.Sql;
  from: Prisma.Sql;
  alias: string;
  conditions: Prisma.Sql[];
  portfolioId: string | undefined;
  afterId: string | null;
  take: number;
}

/**
 * A keyset page (id order) across the portfolios a key can reach: for each portfolio (LATERAL) a
 * range scan of its `(portfolio_id, id)` index from the cursor, limited, then merged in id order.
 * The cost is the same at any depth and never includes another organization's rows.
 *
 * The portfolio is matched as `portfolio_id >= p.id AND portfolio_id <= p.id`, not `=`, on
 * purpose: with `=` the planner may prefer walking the primary key in id order and filtering by
 * portfolio (it assumes every portfolio holds an equal share of the table), which reads the whole
 * table for a small portfolio beside a large one. The range form can only be served in order by
 * the `(portfolio_id, id)` index.
 *
 * Only the conditions in use appear in the text, never `($n IS NULL OR …)`: run as a prepared
 * statement (Database.prepared), Postgres switches to a generic plan after five executions, and
 * in a generic plan such a condition cannot bound the index scan — a keyset page then reads every
 * row before its cursor (measured: 2,829 buffers instead of ~200 in the middle of 20,000 debtors).
 * Both traps are pinned by apps/api-core/test/keyset-reads.e2e-spec.ts.
 */
export function reachableKeysetPageSql(auth: AuthContext, page: KeysetPageQuery): Prisma.Sql {
  const table = Prisma.raw(page.alias);
  const conditions = [Prisma.sql`${table}.portfolio_id >= p.id AND ${table}.portfolio_id <= p.id`, ...page.conditions];
  if (page.afterId !== null) conditions.push(Prisma.sql`${table}.id > ${page.afterId}`);
  const portfolio = page.portfolioId === undefined ? Prisma.empty : Prisma.sql`AND p.id = ${page.portfolioId}`;
  return Prisma.sql`
    SELECT page.* FROM portfolios p
    CROSS JOIN LATERAL (
      SELECT ${page.columns} FROM ${page.from}
      WHERE ${Prisma.join(conditions, ' AND ')}
      ORDER BY ${table}.portfolio_id, ${table}.id LIMIT ${page.take}) page
    WHERE ${reachablePortfolioSql(auth)} ${portfolio}
    ORDER BY page.id LIMIT ${page.take}`;
}
