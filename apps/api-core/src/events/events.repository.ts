import { Injectable } from '@nestjs/common';
import { AuthContext, JsonRow, WebhookEventType } from '@dc/contracts';
import { Database, isoTimestampSql, Prisma } from '@dc/database';
import { KeysetRows, keysetRows, reachableKeysetPageSql, reachablePortfolioSql, residual } from '../reach/reach.repository';

export interface EventListFilter {
  types?: WebhookEventType[];
  portfolioId?: string;
  from?: string;
  to?: string;
}

/** Where a page starts: after this event, in the feed's order (its transaction, then its id). */
export interface FeedPosition {
  id: string;
  /** The event's transaction id (xid8) as text. */
  xid: string;
}

/** An event a query names (`after`, a cursor): its position, and whether the key can read it. */
export interface NamedEvent extends FeedPosition {
  reachable: boolean;
}

/**
 * The feed's horizon (docs/adr/0048): an event is listed once every transaction older than the one
 * that wrote it has ended — its transaction id is below the oldest one still running in the
 * statement's snapshot. A transaction that commits late therefore never lands behind a position a
 * client has already read: until it ends, nothing written after it is listed. The relay applies the
 * same rule, so no delivery names an event the feed does not list yet.
 */
export const FEED_HORIZON = Prisma.sql`e.xid < (SELECT pg_snapshot_xmin(pg_current_snapshot()))`;

/** Inside a page: the event's columns, `xid` (the order) among them. */
const PAGE_COLUMNS = Prisma.sql`e.id, e.xid, e.type, e.created_at AS "createdAt", e.livemode, e.portfolio_id AS "portfolioId", e.payload AS data`;
/** An event as its EventView's JSON text (row_to_json writes the stored payload text as it is). */
const VIEW = (alias: string) =>
  Prisma.raw(`(SELECT row_to_json(v)::text FROM (SELECT ${alias}.id, ${alias}.type, ${isoTimestampSql(`${alias}."createdAt"`)} AS "createdAt",
    ${alias}.livemode, ${alias}."portfolioId", ${alias}.data) v) AS json`);

/**
 * A page of the events the key can reach, in the feed's order: a keyset scan per reachable
 * portfolio of outbox_events_portfolio_feed_idx `(portfolio_id, xid, id)` from the position, below
 * the horizon, merged (reachableKeysetPageSql). Types and from/to are residual filters: the page is
 * then a capped scan (docs/adr/0042).
 */
export function eventsPageSql(auth: AuthContext, filter: EventListFilter, after: FeedPosition | null, take: number): Prisma.Sql {
  const conditions: Prisma.Sql[] = [];
  if (filter.types?.length) conditions.push(residual(Prisma.sql`e.type = ANY(${filter.types}::text[])`));
  if (filter.from !== undefined) conditions.push(residual(Prisma.sql`e.created_at >= ${filter.from}::timestamptz`));
  if (filter.to !== undefined) conditions.push(residual(Prisma.sql`e.created_at <= ${filter.to}::timestamptz`));
  const page = reachableKeysetPageSql(auth, {
    columns: PAGE_COLUMNS,
    from: Prisma.sql`outbox_events e`,
    alias: 'e',
    live: FEED_HORIZON,
    conditions,
    portfolioId: filter.portfolioId,
    afterId: after?.id ?? null,
    position: { column: 'xid', after: Prisma.sql`${after?.xid ?? '0'}::xid8` },
    take,
  });
  const marks = conditions.length ? Prisma.sql`, page."scanHit", page."scanEdge"` : Prisma.empty;
  return Prisma.sql`SELECT page.id, ${VIEW('page')}${marks} FROM (${page}) page ORDER BY page.xid, page.id`;
}

/** One event by id inside the key's reach (committed events, whether or not the feed lists them yet). */
export function eventByIdSql(auth: AuthContext, id: string): Prisma.Sql {
  return Prisma.sql`
    SELECT page.id, ${VIEW('page')}
    FROM (SELECT ${PAGE_COLUMNS} FROM outbox_events e JOIN portfolios p ON p.id = e.portfolio_id
          WHERE e.id = ${id} AND ${reachablePortfolioSql(auth)}) page`;
}

/** The only SQL of the events API: outbox rows are the events (docs/adr/0048). */
@Injectable()
export class EventsRepository {
  constructor(private readonly db: Database) {}

  async listReachable(auth: AuthContext, filter: EventListFilter, after: FeedPosition | null, take: number): Promise<KeysetRows<JsonRow>> {
    return keysetRows(await this.db.prepared<JsonRow>(eventsPageSql(auth, filter, after, take)));
  }

  async findReachable(auth: AuthContext, id: string): Promise<JsonRow | null> {
    const [row] = await this.db.prepared<JsonRow>(eventByIdSql(auth, id));
    return row ?? null;
  }

  /** The events among `ids` that exist (any organization's: the caller decides what to answer), with their positions. */
  named(auth: AuthContext, ids: string[]): Promise<NamedEvent[]> {
    return this.db.prepared<NamedEvent>(Prisma.sql`
      SELECT e.id, e.xid::text AS xid, (${reachablePortfolioSql(auth)}) AS reachable
      FROM outbox_events e JOIN portfolios p ON p.id = e.portfolio_id
      WHERE e.id = ANY(${ids}::text[])`);
  }
}
