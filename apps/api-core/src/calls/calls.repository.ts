import { Injectable } from '@nestjs/common';
import { AuthContext, CallAnalysisDto, CallDirection, CallStatus } from '@dc/contracts';
import { Database, newId, Prisma } from '@dc/database';
import type { Tx } from '../outbox/outbox.writer';
import { IntakePortfolio, reachableKeysetPageSql, reachablePortfolioSql } from '../reach/reachable-sql';
import { CallRow, CallRowWithAnalysis } from './call.mapper';

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

/** The call being changed, locked for the rest of the transaction. */
export interface LockedCall {
  id: string;
  portfolioId: string;
  organizationId: string;
  status: string;
}

// Raw reads alias columns to the model's field names so one mapper serves both paths. Lists never
// read `analysis`.
const LIST_COLUMNS = Prisma.sql`
  c.id, c.portfolio_id AS "portfolioId", c.debtor_id AS "debtorId", c.campaign_id AS "campaignId", c.direction,
  c.status, c.from_number AS "fromNumber", c.to_number AS "toNumber", c.connected_at AS "connectedAt",
  c.effective_duration_sec AS "effectiveDurationSec", c.metrics_start_time AS "metricsStartTime",
  c.metrics_end_time AS "metricsEndTime", c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;

const PORTFOLIO_SELECT = { id: true, organizationId: true, identityCurrency: true } as const;

function toData<T extends CallChanges>(changes: T) {
  const { analysis, ...rest } = changes;
  return {
    ...rest,
    ...(analysis === undefined ? {} : { analysis: analysis === null ? Prisma.DbNull : ({ ...analysis } as Prisma.InputJsonValue) }),
  };
}

/** One keyset page (limit + 1 rows, id order) of the calls the key can reach, filters applied. */
export function callsPageSql(auth: AuthContext, filter: CallListFilter, afterId: string | null, take: number): Prisma.Sql {
  const conditions: Prisma.Sql[] = [];
  if (filter.debtorId !== undefined) conditions.push(Prisma.sql`c.debtor_id = ${filter.debtorId}`);
  if (filter.campaignId !== undefined) conditions.push(Prisma.sql`c.campaign_id = ${filter.campaignId}`);
  if (filter.statuses?.length) conditions.push(Prisma.sql`c.status = ANY(${filter.statuses}::text[])`);
  if (filter.direction !== undefined) conditions.push(Prisma.sql`c.direction = ${filter.direction}`);
  if (filter.from !== undefined) conditions.push(Prisma.sql`c.created_at >= ${filter.from}`);
  if (filter.to !== undefined) conditions.push(Prisma.sql`c.created_at <= ${filter.to}`);
  const page = { columns: LIST_COLUMNS, from: Prisma.sql`calls c`, alias: 'c', conditions, portfolioId: filter.portfolioId, afterId, take };
  return reachableKeysetPageSql(auth, page);
}

/** The only code that touches Prisma/SQL for calls. */
@Injectable()
export class CallsRepository {
  constructor(private readonly db: Database) {}

  inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.client.$transaction(fn);
  }

  /** One keyset page (limit + 1 rows, id order) of the calls the key can reach. */
  listReachable(auth: AuthContext, filter: CallListFilter, afterId: string | null, take: number): Promise<CallRow[]> {
    return this.db.client.$queryRaw<CallRow[]>(callsPageSql(auth, filter, afterId, take));
  }

  async findReachable(auth: AuthContext, id: string): Promise<CallRowWithAnalysis | null> {
    const rows = await this.db.client.$queryRaw<CallRowWithAnalysis[]>`
      SELECT ${LIST_COLUMNS}, c.analysis
      FROM calls c JOIN portfolios p ON p.id = c.portfolio_id
      WHERE c.id = ${id} AND ${reachablePortfolioSql(auth)}`;
    return rows[0] ?? null;
  }

  /** Operator intake: any existing portfolio (the operator is not bound by a key's reach). */
  findPortfolio(id: string): Promise<IntakePortfolio | null> {
    return this.db.client.portfolio.findUnique({ where: { id }, select: PORTFOLIO_SELECT });
  }

  async liveDebtorExists(tx: Tx, portfolioId: string, debtorId: string): Promise<boolean> {
    const row = await tx.debtor.findFirst({ where: { id: debtorId, portfolioId, deletedAt: null, erasedAt: null }, select: { id: true } });
    return row !== null;
  }

  async campaignExists(tx: Tx, portfolioId: string, campaignId: string): Promise<boolean> {
    return (await tx.campaign.findFirst({ where: { id: campaignId, portfolioId }, select: { id: true } })) !== null;
  }

  insert(tx: Tx, call: NewCall): Promise<CallRowWithAnalysis> {
    return tx.call.create({ data: { id: newId('call'), ...toData(call), status: call.status } });
  }

  /** Locks the call (SELECT … FOR UPDATE) so concurrent changes of one call run one after the other. */
  async lock(tx: Tx, id: string): Promise<LockedCall | null> {
    const rows = await tx.$queryRaw<LockedCall[]>`
      SELECT c.id, c.portfolio_id AS "portfolioId", p.organization_id AS "organizationId", c.status
      FROM calls c JOIN portfolios p ON p.id = c.portfolio_id
      WHERE c.id = ${id}
      FOR UPDATE OF c`;
    return rows[0] ?? null;
  }

  update(tx: Tx, id: string, changes: CallChanges): Promise<CallRowWithAnalysis> {
    return tx.call.update({ where: { id }, data: toData(changes) });
  }
}
