import { AuthContext, MAX_ROWS_EXAMINED_PER_PAGE } from '@dc/contracts';
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

/**
 * The page's key: the equality filter that leads its index, `(column, portfolio_id, id)` (`id`: a
 * by-id read, the primary key). For each portfolio and each value the scan starts at the cursor
 * and stops after `take` rows or at the end of the value, whatever the value's share of the table.
 */
export interface KeysetKey {
  column: string;
  /** One value, or several: one scan per value (deduplicated here). */
  values: readonly string[];
}

/** One keyset page of a portfolio-scoped table; `alias` names the table in `from`, `columns` and `conditions`. */
export interface KeysetPageQuery {
  columns: Prisma.Sql;
  from: Prisma.Sql;
  alias: string;
  /**
   * The table's liveness (none: every row is shown), checked as `residual(live)`: the very text of
   * the WHERE of the table's page indexes, so those indexes, and no other partial index, serve it.
   */
  live?: Prisma.Sql;
  /** The page's key (one filter at most); none: the `(portfolio_id, id)` index. */
  key?: KeysetKey;
  /**
   * Every other filter, written with `residual`: checked on the rows the scan examines, at most
   * MAX_ROWS_EXAMINED_PER_PAGE of them per page (docs/adr/0042).
   */
  conditions: Prisma.Sql[];
  portfolioId: string | undefined;
  afterId: string | null;
  take: number;
  /**
   * The table is partitioned by month on its ids (docs/adr/0051): a page in id order skips the
   * partitions before its cursor, instead of one index descent in each.
   */
  partitionedById?: boolean;
  /**
   * A column between portfolio_id and id in the page's order, and its value at the cursor (the
   * first page: a value before every row's). Only without a key; its index is `(portfolio_id,
   * column, id)` and `columns` must select it under its own name. None: id order.
   */
  position?: { column: string; after: Prisma.Sql };
}

/**
 * A condition checked on the rows a page's index returns, written `(…) IS NOT DISTINCT FROM true`:
 * the same test, but no index takes it as a key, no partial index's predicate follows from it but
 * one spelled the same way, and the planner estimates it at one half whatever the statistics say
 * (a boolean expression has none). Written plainly, a second indexed filter (a debtor and a status)
 * offers a second index whose estimated cost ties with the key's when statistics are missing, and
 * `deleted_at IS NULL` without statistics is estimated at 0.5 % of the rows, which makes every
 * index on live rows look empty and reading a whole portfolio to sort it look as cheap as the
 * ordered scan (docs/adr/0023).
 */
export function residual(condition: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(${condition}) IS NOT DISTINCT FROM true`;
}

/**
 * A keyset page (id order) across the portfolios a key can reach: for each portfolio (LATERAL),
 * and for each value of the page's key, a range scan of the index whose columns and predicate are
 * those of the query — `([key,] portfolio_id, id) [WHERE residual(<liveness>)]` — from the cursor,
 * limited, then merged in id order. The cost is `take` rows per scan at any depth, never includes
 * another organization's rows, and does not depend on the planner's statistics (docs/adr/0023,
 * pinned by apps/api-core/test/stale-statistics-plans.e2e-spec.ts):
 *
 * - The portfolio and the cursor are one row comparison, `(portfolio_id, id) > (p.id, cursor)`
 *   (the first page's cursor is '', before every id), with `portfolio_id <= p.id`. Only an index
 *   with `portfolio_id, id` after its key serves it in order, so the planner cannot walk the
 *   primary key in id order filtering by portfolio (with `portfolio_id = p.id` it may: it assumes
 *   every portfolio holds an equal share of the table, and reads the whole table for a small
 *   portfolio beside a large one). Its estimate never looks at the cursor's value: a cursor past
 *   the histogram (a portfolio loaded after the last ANALYZE) would be estimated at no rows, and
 *   reading those "no rows" and sorting them looks cheaper than the ordered scan. With a key, the
 *   scan is in the key index's order, `(key, portfolio_id, id)`, and the key is matched as an
 *   array, `key = ANY(ARRAY[k.v])`: with `key = v` the planner would take the key as a constant of
 *   the order, and the `(portfolio_id, id)` index could serve the page filtering by the key — with
 *   statistics it did whenever the value looked common (a generic plan guesses a direction at half
 *   the rows): 20 rows read per row kept for inbound calls, the whole portfolio for a value it
 *   wrongly thought common (docs/adr/0042). An array keeps the key in the order, so only the key
 *   index serves it, and is still an equality to the index: the scan starts at the row comparison
 *   on the columns after the key, `(portfolio_id, id) > (p.id, cursor)`, and ends where the
 *   portfolio's rows of the value end (`portfolio_id <= p.id`). A row comparison led by the key,
 *   `(key, portfolio_id) <= (k.v, p.id)`, ended it only where the key changed: Postgres 15 ends a
 *   scan on a row comparison's first column only, so the last page of a value walked every later
 *   portfolio's rows of it — other tenants' (docs/adr/0051; the plan test's last pages).
 * - The inner LIMIT is `(SELECT take)`: a limit the planner cannot read, so it plans the scan
 *   for a tenth of its rows, as it already does in a generic plan (`LIMIT $n`). With the real
 *   limit, a scan estimated below `take` rows looks no cheaper in order than read and sorted.
 * - Only the conditions in use appear in the text, never `($n IS NULL OR …)`: run as a prepared
 *   statement (Database.prepared), Postgres switches to a generic plan after five executions, and
 *   in a generic plan such a condition cannot bound the index scan (measured: 2,829 buffers
 *   instead of ~200 in the middle of 20,000 debtors; apps/api-core/test/keyset-reads.e2e-spec.ts).
 *
 * With `conditions`, the page is a capped scan (docs/adr/0042): each scan examines its share of
 * MAX_ROWS_EXAMINED_PER_PAGE rows, the conditions evaluated in its select list (the scan's WHERE,
 * and so its plan, is the unfiltered page's), and returns the rows that pass plus its last row
 * examined when it used its whole share, marked `scanEdge`. `keysetRows` ends the page there.
 */
export function reachableKeysetPageSql(auth: AuthContext, page: KeysetPageQuery): Prisma.Sql {
  const table = Prisma.raw(page.alias);
  const conditions: Prisma.Sql[] = [];
  let values = Prisma.empty;
  const distinct = page.key ? [...new Set(page.key.values)] : [];
  const afterId = page.afterId ?? '';
  const position = page.position ? Prisma.sql`${table}.${Prisma.raw(page.position.column)}, ` : Prisma.empty;
  const after = page.position ? Prisma.sql`${page.position.after}, ${afterId}` : Prisma.sql`${afterId}`;
  let order = Prisma.sql`${table}.portfolio_id, ${position}${table}.id`;
  if (page.key?.column === 'id') {
    // A by-id read: the primary key finds the row.
    conditions.push(Prisma.sql`${table}.id = ${distinct[0]}`);
    conditions.push(Prisma.sql`(${table}.portfolio_id, ${table}.id) > (p.id, ${afterId}) AND ${table}.portfolio_id <= p.id`);
  } else if (page.key) {
    // One scan per value in the key index's order: the key as an array (an equality the planner
    // keeps in the order, see above), the portfolio's range after it. IS NOT NULL implies the
    // predicate of a partial key index (calls' campaign index).
    const column = Prisma.sql`${table}.${Prisma.raw(page.key.column)}`;
    values = Prisma.sql`CROSS JOIN unnest(${distinct}::text[]) AS k(v)`;
    conditions.push(Prisma.sql`${column} IS NOT NULL`);
    conditions.push(Prisma.sql`${column} = ANY(ARRAY[k.v]) AND (${table}.portfolio_id, ${table}.id) > (p.id, ${afterId}) AND ${table}.portfolio_id <= p.id`);
    order = Prisma.sql`${column}, ${order}`;
  } else {
    conditions.push(Prisma.sql`(${table}.portfolio_id, ${position}${table}.id) > (p.id, ${after}) AND ${table}.portfolio_id <= p.id`);
  }
  if (page.live) conditions.push(residual(page.live));
  const portfolio = page.portfolioId === undefined ? Prisma.empty : Prisma.sql`AND p.id = ${page.portfolioId}`;
  if (page.partitionedById && page.afterId && !page.position && page.key?.column !== 'id') {
    // The months before the cursor hold no row of the page: pruned when the scan starts. A scalar
    // `id > cursor` would be estimated from the histogram (the trap above); an InitPlan's value is not.
    conditions.push(Prisma.sql`${table}.id > (SELECT ${page.afterId}::text)`);
  }
  const where = Prisma.join(conditions, ' AND ');
  let budget = Prisma.empty;
  let scan = Prisma.sql`
      SELECT ${page.columns} FROM ${page.from}
      WHERE ${where}
      ORDER BY ${order} LIMIT (SELECT ${page.take}::int)`;
  if (page.conditions.length) {
    // The page's scans (portfolios × key values) share the cap; each examines at least one row.
    budget = Prisma.sql`WITH budget AS (
      SELECT greatest(${MAX_ROWS_EXAMINED_PER_PAGE}::int / (greatest(count(*), 1) * ${Math.max(distinct.length, 1)}::int), 1)::int AS n
      FROM portfolios p WHERE ${reachablePortfolioSql(auth)} ${portfolio})`;
    // ROWS: row_number() then reads no row ahead of the current one (RANGE looks for its peers).
    scan = Prisma.sql`
      SELECT scan.* FROM (
        SELECT ${page.columns}, ${Prisma.join(page.conditions, ' AND ')} AS "scanHit",
          row_number() OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) = (SELECT n FROM budget) AS "scanEdge"
        FROM ${page.from}
        WHERE ${where}
        ORDER BY ${order} LIMIT (SELECT n FROM budget)) scan
      WHERE scan."scanHit" OR scan."scanEdge"
      LIMIT (SELECT ${page.take}::int)`;
  }
  return Prisma.sql`${budget}
    SELECT page.* FROM portfolios p ${values}
    CROSS JOIN LATERAL (${scan}) page
    WHERE ${reachablePortfolioSql(auth)} ${portfolio}
    ORDER BY ${page.position ? Prisma.sql`page.${Prisma.raw(page.position.column)}, ` : Prisma.empty}page.id LIMIT ${page.take}`;
}

/** Marks of a capped scan's rows (reachableKeysetPageSql): passed the filters; the scan's last row examined. */
interface ScanMarks {
  scanHit?: boolean;
  scanEdge?: boolean;
}

/** A page's rows (at most `take`, id order), and after which id the next page resumes when a capped scan stopped it short. */
export interface KeysetRows<R> {
  rows: R[];
  resumeAfter: string | null;
}

/**
 * The rows of reachableKeysetPageSql, in id order, as a page: a capped page keeps the rows that
 * passed its filters up to its first scan edge — every row up to that id has been examined, by
 * every scan — and resumes after it (docs/adr/0042). Other pages are their rows.
 */
export function keysetRows<R extends { id: string }>(rows: (R & ScanMarks)[]): KeysetRows<R> {
  if (!rows.length || rows[0].scanHit === undefined) return { rows, resumeAfter: null };
  const kept: R[] = [];
  for (const { scanHit, scanEdge, ...row } of rows) {
    if (scanHit) kept.push(row as unknown as R);
    if (scanEdge) return { rows: kept, resumeAfter: row.id };
  }
  return { rows: kept, resumeAfter: null };
}
