import { Injectable } from '@nestjs/common';
import { AuthContext, CallAnalysisDto, CallDirection, CallListItemView, CallStatus, CallView, WebhookEventType } from '@dc/contracts';
import { Database, ReadRouter, isoDates, newId, Prisma, SqlTransaction, Stored } from '@dc/database';
import type { EventEmission } from '../outbox/event-emission';
import { EVENT_SOURCE_COLUMN, EventSource, outboxRowFromSql, outboxRowSql } from '../outbox/outbox.repository';
import { KeysetKey, KeysetRows, keysetRows, reachableKeysetPageSql, reachablePortfolioSql, residual } from '../reach/reach.repository';
import { liveDebtorColumn } from '../shared/lookups.repository';
import { callAnalysisView } from './call-analysis';

export interface CallListFilter {
  portfolioId?: string;
  debtorId?: string;
  campaignId?: string;
  statuses?: string[];
  direction?: string;
  /** Inclusive bounds on created_at. */
  from?: Date;
  to?: Date;
}

/** Writable call fields; undefined leaves a field untouched, null clears it. */
export interface CallChanges {
  status?: CallStatus;
  campaignId?: string | null;
  fromNumber?: string | null;
  toNumber?: string | null;
  connectedAt?: Date | null;
  effectiveDurationSec?: number | null;
  metricsStartTime?: Date | null;
  metricsEndTime?: Date | null;
  analysis?: CallAnalysisDto | null;
}

export interface NewCall extends CallChanges {
  portfolioId: string;
  debtorId: string;
  direction: CallDirection;
  status: CallStatus;
}

/** The call being changed, locked for the rest of the transaction, with its portfolio's event source. */
export interface LockedCall {
  id: string;
  portfolioId: string;
  organizationId: string;
  status: string;
  eventSource: EventSource;
  /** The campaign the change names is one of the call's portfolio (false when it names none). */
  campaignFound: boolean;
}

/** A call as its SQL returns it: the list item with Date timestamps, and the stored analysis JSON. */
type CallItemRow = Stored<CallListItemView, 'connectedAt' | 'metricsStartTime' | 'metricsEndTime' | 'createdAt' | 'updatedAt'>;
export type CallRow = CallItemRow & { analysis: unknown };

/** calls columns named as CallListItemView's fields, in its order. Lists never read `analysis`. */
const LIST_COLUMNS = Prisma.sql`
  c.id, c.portfolio_id AS "portfolioId", c.debtor_id AS "debtorId", c.campaign_id AS "campaignId", c.direction,
  c.status, c.from_number AS "fromNumber", c.to_number AS "toNumber", c.connected_at AS "connectedAt",
  c.effective_duration_sec::float8 AS "effectiveDurationSec", c.metrics_start_time AS "metricsStartTime",
  c.metrics_end_time AS "metricsEndTime", c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;
const CALL_COLUMNS = Prisma.sql`${LIST_COLUMNS}, c.analysis`;

/** The column of each writable field. */
const CHANGE_COLUMNS: { readonly [K in keyof CallChanges]-?: string } = {
  status: 'status',
  campaignId: 'campaign_id',
  fromNumber: 'from_number',
  toNumber: 'to_number',
  connectedAt: 'connected_at',
  effectiveDurationSec: 'effective_duration_sec',
  metricsStartTime: 'metrics_start_time',
  metricsEndTime: 'metrics_end_time',
  analysis: 'analysis',
};

function analysisJson(analysis: CallAnalysisDto | null | undefined): string | null {
  return analysis ? JSON.stringify({ ...analysis }) : null;
}

/** A call's row as the API shows it. */
export function toCallView(row: CallRow): CallView {
  return { ...isoDates(row), analysis: callAnalysisView(row.analysis) };
}

/**
 * One keyset page (limit + 1 rows, id order) of the calls the key can reach, filters applied. The
 * page's key (docs/adr/0023) is the first filter given of: the debtor (calls_debtor_id_portfolio_id_id_idx),
 * the campaign (calls_campaign_id_portfolio_id_id_idx), the statuses, one scan each
 * (calls_status_portfolio_id_id_idx), the direction (calls_direction_portfolio_id_id_idx); none:
 * calls_portfolio_id_id_idx. The others are residual filters, and from/to always are (createdAt
 * bounds, not in id order): the page is then a capped scan, short when the cap stops it (docs/adr/0042).
 */
export function callsPageSql(auth: AuthContext, filter: CallListFilter, afterId: string | null, take: number): Prisma.Sql {
  let key: KeysetKey | undefined;
  const conditions: Prisma.Sql[] = [];
  const filters: [column: string, values: readonly string[] | undefined][] = [
    ['debtor_id', filter.debtorId === undefined ? undefined : [filter.debtorId]],
    ['campaign_id', filter.campaignId === undefined ? undefined : [filter.campaignId]],
    ['status', filter.statuses?.length ? filter.statuses : undefined],
    ['direction', filter.direction === undefined ? undefined : [filter.direction]],
  ];
  for (const [column, values] of filters) {
    if (values === undefined) continue;
    if (key) conditions.push(residual(Prisma.sql`c.${Prisma.raw(column)} = ANY(${values}::text[])`));
    else key = { column, values };
  }
  if (filter.from !== undefined) conditions.push(residual(Prisma.sql`c.created_at >= ${filter.from}`));
  if (filter.to !== undefined) conditions.push(residual(Prisma.sql`c.created_at <= ${filter.to}`));
  const page = { columns: LIST_COLUMNS, from: Prisma.sql`calls c`, alias: 'c', partitionedById: true, key, conditions, portfolioId: filter.portfolioId, afterId, take };
  return reachableKeysetPageSql(auth, page);
}

/** A call by id (primary key), with its analysis, inside the key's reach. */
export function callByIdSql(auth: AuthContext, id: string): Prisma.Sql {
  return Prisma.sql`
    SELECT ${CALL_COLUMNS}
    FROM calls c JOIN portfolios p ON p.id = c.portfolio_id
    WHERE c.id = ${id} AND ${reachablePortfolioSql(auth)}`;
}

/** What a call's intake decides on, read in one statement (callContextSql). */
export interface CallContext {
  organizationId: string;
  eventSource: EventSource;
  debtorLive: boolean;
  /** The named campaign is one of the portfolio's (false when none is named). */
  campaignFound: boolean;
}

/** `campaignFound`: the campaign named is one of the portfolio whose id is `portfolioId` (a column); false when none is named. */
function campaignFoundColumn(campaignId: string | null, portfolioId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM campaigns cp WHERE cp.id = ${campaignId}::text AND cp.portfolio_id = ${portfolioId}) AS "campaignFound"`;
}

/** The intake's read: the portfolio (any: the operator's), its event source, the debtor and the campaign, in one row. */
export function callContextSql(portfolioId: string, debtorId: string, campaignId: string | null): Prisma.Sql {
  return Prisma.sql`
    SELECT p.organization_id AS "organizationId", ${EVENT_SOURCE_COLUMN}, ${liveDebtorColumn(debtorId)},
      ${campaignFoundColumn(campaignId, Prisma.sql`p.id`)}
    FROM portfolios p
    JOIN organizations o ON o.id = p.organization_id
    WHERE p.id = ${portfolioId}`;
}

/** A new call's list item: what call.completed carries, known before the insert (its timestamps at ms, as stored). */
function newCallItem(id: string, call: NewCall, at: string): CallListItemView {
  const iso = (value: Date | null | undefined) => value?.toISOString() ?? null;
  return {
    id,
    portfolioId: call.portfolioId,
    debtorId: call.debtorId,
    campaignId: call.campaignId ?? null,
    direction: call.direction,
    status: call.status,
    fromNumber: call.fromNumber ?? null,
    toNumber: call.toNumber ?? null,
    connectedAt: iso(call.connectedAt),
    effectiveDurationSec: call.effectiveDurationSec ?? null,
    metricsStartTime: iso(call.metricsStartTime),
    metricsEndTime: iso(call.metricsEndTime),
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * The intake's write, one statement: the call and, when `event` is given (a call created completed,
 * in a portfolio that emits events), its call.completed outbox row carrying the list item.
 */
export function insertCallSql(call: NewCall, id: string, at: string, event: (EventEmission & { id: string }) | null): Prisma.Sql {
  const insert = Prisma.sql`
    INSERT INTO calls AS c (id, portfolio_id, debtor_id, campaign_id, direction, status, from_number, to_number, connected_at,
      effective_duration_sec, metrics_start_time, metrics_end_time, analysis, created_at, updated_at)
    VALUES (${id}, ${call.portfolioId}, ${call.debtorId}, ${call.campaignId ?? null}, ${call.direction}, ${call.status},
      ${call.fromNumber ?? null}, ${call.toNumber ?? null}, ${call.connectedAt ?? null}, ${call.effectiveDurationSec ?? null},
      ${call.metricsStartTime ?? null}, ${call.metricsEndTime ?? null}, ${analysisJson(call.analysis)}::jsonb, ${at}::timestamptz, ${at}::timestamptz)
    RETURNING ${CALL_COLUMNS}`;
  if (!event) return insert;
  const outbox = outboxRowFromSql(Prisma.sql`created`, { ...event, portfolioId: call.portfolioId, type: WebhookEventType.CallCompleted, payload: newCallItem(id, call, at) });
  return Prisma.sql`WITH created AS (${insert}), event AS (${outbox}) SELECT * FROM created`;
}

/** The only code that touches Prisma/SQL for calls. */
@Injectable()
export class CallsRepository {
  constructor(
    private readonly db: Database,
    /** Public list and by-id reads: a replica, or the primary (docs/adr/0050). */
    private readonly reads: ReadRouter,
  ) {}

  /** One keyset page (limit + 1 rows, id order) of the calls the key can reach. */
  async listReachable(auth: AuthContext, filter: CallListFilter, afterId: string | null, take: number): Promise<KeysetRows<CallListItemView>> {
    return keysetRows((await this.reads.prepared<CallItemRow>(auth.apiKeyId, callsPageSql(auth, filter, afterId, take))).map(isoDates));
  }

  async findReachable(auth: AuthContext, id: string): Promise<CallView | null> {
    const [row] = await this.reads.prepared<CallRow>(auth.apiKeyId, callByIdSql(auth, id));
    return row ? toCallView(row) : null;
  }

  /** The intake's read (callContextSql); null when the portfolio does not exist. */
  async context(portfolioId: string, debtorId: string, campaignId: string | null): Promise<CallContext | null> {
    const [context] = await this.db.prepared<CallContext>(callContextSql(portfolioId, debtorId, campaignId));
    return context ?? null;
  }

  /** A new call (insertCallSql): fields not given are null, both timestamps the time of the write. */
  async insert(call: NewCall, event: EventEmission | null): Promise<CallView> {
    const [row] = await this.db.prepared<CallRow>(insertCallSql(call, newId('call'), new Date().toISOString(), event && { id: newId('evt'), ...event }));
    return toCallView(row);
  }

  /** A call's update, in one transaction through `pg` (no ORM round trips): lock, change, and its event. */
  transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    return this.db.sqlTransaction(fn);
  }

  /**
   * Locks the call (SELECT … FOR UPDATE) so concurrent changes of one call run one after the other,
   * reading with it what the change decides on: its status, event source and the campaign it names.
   */
  async lock(tx: SqlTransaction, id: string, campaignId: string | null): Promise<LockedCall | null> {
    const [row] = await tx.query<LockedCall>(Prisma.sql`
      SELECT c.id, c.portfolio_id AS "portfolioId", p.organization_id AS "organizationId", c.status, ${EVENT_SOURCE_COLUMN},
        ${campaignFoundColumn(campaignId, Prisma.sql`c.portfolio_id`)}
      FROM calls c JOIN portfolios p ON p.id = c.portfolio_id JOIN organizations o ON o.id = p.organization_id
      WHERE c.id = ${id}
      FOR UPDATE OF c`);
    return row ?? null;
  }

  /** Writes the given fields (undefined ones untouched) and updated_at; the call must exist (locked). */
  async update(tx: SqlTransaction, id: string, changes: CallChanges): Promise<CallView> {
    const fields = (Object.keys(CHANGE_COLUMNS) as (keyof CallChanges)[]).filter((field) => changes[field] !== undefined);
    const sets = fields.map((field) => {
      const column = Prisma.raw(CHANGE_COLUMNS[field]);
      return field === 'analysis' ? Prisma.sql`${column} = ${analysisJson(changes.analysis)}::jsonb` : Prisma.sql`${column} = ${changes[field]}`;
    });
    const [row] = await tx.query<CallRow>(Prisma.sql`
      UPDATE calls AS c SET ${Prisma.join([...sets, Prisma.sql`updated_at = ${new Date()}`])}
      WHERE c.id = ${id}
      RETURNING ${CALL_COLUMNS}`);
    if (!row) throw new Error(`call ${id} vanished while locked`);
    return toCallView(row);
  }

  /** The call.completed outbox row of a call the transaction moved to completed; its payload is the list item. */
  async recordCompleted(tx: SqlTransaction, item: CallListItemView, emission: EventEmission): Promise<void> {
    await tx.query(outboxRowSql({ ...emission, id: newId('evt'), portfolioId: item.portfolioId, type: WebhookEventType.CallCompleted, payload: item }));
  }
}
