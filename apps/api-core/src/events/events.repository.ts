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

/** Where a page starts: after this event, in the feed's order (its feed position, then its id). */
export interface FeedPosition {
  id: string;
  /** The event's feed_position (bigint) as text. */
  position: string;
}

/** A listed event a query names (`after`, a cursor): its position, and whether the key can read it. */
export interface NamedEvent extends FeedPosition {
  reachable: boolean;
}

/**
 * Listed events (docs/adr/0048): those the relay has given a feed position. Positions are given by
 * relay transactions that commit one after the other, so they only grow in commit order: an event
 * that commits late gets a later position and never lands behind one a client has read.
 */
const LISTED = Prisma.sql`e.feed_position IS NOT NULL`;

/** Inside a page: the event's columns, `feed_position` (the order) among them. */
const PAGE_COLUMNS = Prisma.sql`e.id, e.feed_position, e.type, e.created_at AS "createdAt", e.livemode, e.portfolio_id AS "portfolioId", e.payload AS data`;
/** An event as its EventView's JSON text (row_to_json writes the stored payload text as it is). */
const VIEW = (alias: string) =>
  Prisma.raw(`(SELECT row_to_json(v)::text FROM (SELECT ${alias}.id, ${alias}.type, ${isoTimestampSql(`${alias}."createdAt"`)} AS "createdAt",
    ${alias}.livemode, ${alias}."portfolioId", ${alias}.data) v) AS json`);

/**
 * A page of the events the key can reach, in the feed's order: a keyset scan per reachable
 * portfolio of outbox_events_portfolio_feed_idx `(portfolio_id, feed_position, id)` from the
 * position, merged (reachableKeysetPageSql). Types and from/to are residual filters: the page is
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
    live: LISTED,
    conditions,
    portfolioId: filter.portfolioId,
    afterId: after?.id ?? null,
    // The first page starts before position 0 (the events written before positions existed).
    position: { column: 'feed_position', after: Prisma.sql`${after?.position ?? '-1'}::bigint` },
    take,
  });
  const marks = conditions.length ? Prisma.sql`, page."scanHit", page."scanEdge"` : Prisma.empty;
  return Prisma.sql`SELECT page.id, ${VIEW('page')}${marks} FROM (${page}) page ORDER BY page.feed_position, page.id`;
}

/** One listed event by id inside the key's reach. */
export function eventByIdSql(auth: AuthContext, id: string): Prisma.Sql {
  return Prisma.sql`
    SELECT page.id, ${VIEW('page')}
    FROM (SELECT ${PAGE_COLUMNS} FROM outbox_events e JOIN portfolios p ON p.id = e.portfolio_id
          WHERE e.id = ${id} AND ${LISTED} AND ${reachablePortfolioSql(auth)}) page`;
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

  /** The listed events among `ids` (any organization's: the caller decides what to answer), with their positions. */
  listed(auth: AuthContext, ids: string[]): Promise<NamedEvent[]> {
    return this.db.prepared<NamedEvent>(Prisma.sql`
      SELECT e.id, e.feed_position::text AS position, (${reachablePortfolioSql(auth)}) AS reachable
      FROM outbox_events e JOIN portfolios p ON p.id = e.portfolio_id
      WHERE e.id = ANY(${ids}::text[]) AND ${LISTED}`);
  }
}
