import { Injectable } from '@nestjs/common';
import { AuthContext, CampaignMetricsView, CampaignStatus, CampaignView } from '@dc/contracts';
import { Database, ReadRouter, isoDates, newId, Prisma, Stored } from '@dc/database';
import { reachableKeysetPageSql, reachablePortfolioSql } from '../reach/reach.repository';

export interface CampaignListFilter {
  portfolioId?: string;
  statuses?: string[];
}

export interface NewCampaign {
  portfolioId: string;
  name: string;
  description: string | null;
  channel: string;
  startsAt: Date | null;
  endsAt: Date | null;
}

/** A campaign without its metrics (they come from their own query, for a whole page at once). */
export type CampaignRecord = Omit<CampaignView, 'metrics'>;

/** A campaign as its SQL returns it: the record, timestamps still Date. */
type CampaignRow = Stored<CampaignRecord, 'startsAt' | 'endsAt' | 'createdAt' | 'updatedAt'>;

/** campaigns columns named as CampaignView's fields, in its order (metrics follow). */
const COLUMNS = Prisma.sql`
  cmp.id, cmp.portfolio_id AS "portfolioId", cmp.name, cmp.description, cmp.channel, cmp.status,
  cmp.starts_at AS "startsAt", cmp.ends_at AS "endsAt", cmp.created_at AS "createdAt", cmp.updated_at AS "updatedAt"`;

/**
 * One keyset page (limit + 1 rows, id order) of the campaigns the key can reach, filters applied:
 * statuses are the page's key, one scan each (campaigns_status_portfolio_id_id_idx, docs/adr/0023).
 */
export function campaignsPageSql(auth: AuthContext, filter: CampaignListFilter, afterId: string | null, take: number): Prisma.Sql {
  const key = filter.statuses?.length ? { column: 'status', values: filter.statuses } : undefined;
  const page = { columns: COLUMNS, from: Prisma.sql`campaigns cmp`, alias: 'cmp', key, conditions: [], portfolioId: filter.portfolioId, afterId, take };
  return reachableKeysetPageSql(auth, page);
}

/** A campaign by id (primary key) inside the key's reach. */
export function campaignByIdSql(auth: AuthContext, id: string): Prisma.Sql {
  return Prisma.sql`
    SELECT ${COLUMNS}
    FROM campaigns cmp JOIN portfolios p ON p.id = cmp.portfolio_id
    WHERE cmp.id = ${id} AND ${reachablePortfolioSql(auth)}`;
}

/** The only code that touches Prisma/SQL for campaigns. */
@Injectable()
export class CampaignsRepository {
  constructor(
    private readonly db: Database,
    /** Public list and by-id reads: a replica, or the primary (docs/adr/0050). */
    private readonly reads: ReadRouter,
  ) {}

  /** One keyset page (limit + 1 rows, id order) of the campaigns the key can reach. */
  async listReachable(auth: AuthContext, filter: CampaignListFilter, afterId: string | null, take: number): Promise<CampaignRecord[]> {
    return (await this.reads.prepared<CampaignRow>(auth.apiKeyId, campaignsPageSql(auth, filter, afterId, take))).map(isoDates);
  }

  async findReachable(auth: AuthContext, id: string): Promise<CampaignRecord | null> {
    const [row] = await this.reads.prepared<CampaignRow>(auth.apiKeyId, campaignByIdSql(auth, id));
    return row ? isoDates(row) : null;
  }

  /**
   * Metrics of every campaign of a page in ONE query, each in CampaignMetricsView's shape: call
   * counts per campaign, and promises taken in the campaign's calls grouped by currency (amounts of
   * different currencies are never added). Campaigns without calls have no entry. `apiKeyId`: a
   * public read's, read where its campaigns were (docs/adr/0050); null: the operator's, on the primary.
   */
  async metrics(campaignIds: string[], apiKeyId: string | null): Promise<Map<string, CampaignMetricsView>> {
    if (!campaignIds.length) return new Map();
    const read = <T extends object>(sql: Prisma.Sql) => (apiKeyId === null ? this.db.prepared<T>(sql) : this.reads.prepared<T>(apiKeyId, sql));
    const rows = await read<CampaignMetricsView & { campaignId: string }>(Prisma.sql`
      WITH call_stats AS (
        SELECT campaign_id,
               count(*)::int AS calls_total,
               count(*) FILTER (WHERE status = 'completed')::int AS calls_completed,
               count(DISTINCT debtor_id) FILTER (WHERE status = 'completed')::int AS debtors_reached
        FROM calls WHERE campaign_id = ANY(${campaignIds}::text[])
        GROUP BY campaign_id
      ), promise_stats AS (
        SELECT c.campaign_id, pr.currency, count(*)::int AS n, sum(pr.amount)::float8 AS amount
        FROM promises pr JOIN calls c ON c.id = pr.call_id
        WHERE c.campaign_id = ANY(${campaignIds}::text[])
        GROUP BY c.campaign_id, pr.currency
      )
      SELECT cs.campaign_id AS "campaignId", cs.calls_total AS "callsTotal", cs.calls_completed AS "callsCompleted",
             cs.debtors_reached AS "debtorsReached",
             COALESCE((SELECT sum(ps.n) FROM promise_stats ps WHERE ps.campaign_id = cs.campaign_id), 0)::int AS "promisesTotal",
             COALESCE((SELECT json_agg(json_build_object('currency', ps.currency, 'amount', ps.amount) ORDER BY ps.currency)
                       FROM promise_stats ps WHERE ps.campaign_id = cs.campaign_id), '[]'::json) AS "promisedAmounts"
      FROM call_stats cs`);
    return new Map(rows.map(({ campaignId, ...metrics }) => [campaignId, metrics]));
  }

  async findById(id: string): Promise<CampaignRecord | null> {
    const [row] = await this.db.client.$queryRaw<CampaignRow[]>`SELECT ${COLUMNS} FROM campaigns cmp WHERE cmp.id = ${id}`;
    return row ? isoDates(row) : null;
  }

  /** A new draft campaign; both timestamps are the time of the write. */
  async insert(campaign: NewCampaign): Promise<CampaignRecord> {
    const now = new Date();
    const [row] = await this.db.client.$queryRaw<CampaignRow[]>`
      INSERT INTO campaigns AS cmp (id, portfolio_id, name, description, channel, status, starts_at, ends_at, created_at, updated_at)
      VALUES (${newId('cmp')}, ${campaign.portfolioId}, ${campaign.name}, ${campaign.description}, ${campaign.channel}, 'draft',
        ${campaign.startsAt}, ${campaign.endsAt}, ${now}, ${now})
      RETURNING ${COLUMNS}`;
    return isoDates(row);
  }

  /** Compare-and-set: moves the campaign only if it is still `from`; null when it changed meanwhile. */
  async transition(id: string, from: string, to: CampaignStatus): Promise<CampaignRecord | null> {
    const [row] = await this.db.client.$queryRaw<CampaignRow[]>`
      UPDATE campaigns AS cmp SET status = ${to}, updated_at = ${new Date()}
      WHERE cmp.id = ${id} AND cmp.status = ${from}
      RETURNING ${COLUMNS}`;
    return row ? isoDates(row) : null;
  }
}
