import { Injectable } from '@nestjs/common';
import { AuthContext, CreatePortfolioDto, PortfolioView, UpdatePortfolioDto } from '@dc/contracts';
import { Database, ReadRouter, isoDates, newId, Prisma, Stored } from '@dc/database';
import { reachablePortfolioSql } from '../reach/reach.repository';

/** A portfolio as its SQL returns it: the PortfolioView, timestamps still Date. */
type PortfolioRow = Stored<PortfolioView, 'operatingInfoLastActivity' | 'createdAt' | 'updatedAt'>;

/** portfolios columns named as PortfolioView's fields, in its order. */
const COLUMNS = Prisma.sql`
  p.id, p.organization_id AS "organizationId", p.status, p.identity_name AS "identityName",
  p.identity_description AS "identityDescription", p.identity_debt_type AS "identityDebtType",
  p.identity_currency AS "identityCurrency", p.identity_region AS "identityRegion", p.identity_timezone AS "identityTimezone",
  p.operating_info_max_channels AS "operatingInfoMaxChannels", p.operating_info_last_activity AS "operatingInfoLastActivity",
  p.compliance_pii_redaction_enabled AS "compliancePiiRedactionEnabled", p.created_at AS "createdAt", p.updated_at AS "updatedAt"`;

/** The column of each field the operator may set. */
const FIELD_COLUMNS: { readonly [K in keyof UpdatePortfolioDto]-?: string } = {
  identityName: 'identity_name',
  identityCurrency: 'identity_currency',
  identityRegion: 'identity_region',
  identityTimezone: 'identity_timezone',
  identityDescription: 'identity_description',
  identityDebtType: 'identity_debt_type',
  operatingInfoMaxChannels: 'operating_info_max_channels',
  compliancePiiRedactionEnabled: 'compliance_pii_redaction_enabled',
  status: 'status',
  demo: 'demo',
};

/** The fields sent (undefined ones left alone), each as its column and value. */
function sentFields(input: UpdatePortfolioDto): { column: Prisma.Sql; value: Prisma.Sql }[] {
  return (Object.keys(FIELD_COLUMNS) as (keyof UpdatePortfolioDto)[])
    .filter((field) => input[field] !== undefined)
    .map((field) => ({
      column: Prisma.raw(FIELD_COLUMNS[field]),
      value: field === 'identityCurrency' ? Prisma.sql`${input[field]}::text[]` : Prisma.sql`${input[field]}`,
    }));
}

@Injectable()
export class PortfoliosRepository {
  constructor(
    private readonly db: Database,
    /** Public list and by-id reads: a replica, or the primary (docs/adr/0050). */
    private readonly reads: ReadRouter,
  ) {}

  /** One keyset page (limit + 1 rows, id order) of the portfolios the key can reach. */
  async listReachable(auth: AuthContext, afterId: string | null, take: number): Promise<PortfolioView[]> {
    const after = afterId === null ? Prisma.empty : Prisma.sql`AND p.id > ${afterId}`;
    const rows = await this.reads.prepared<PortfolioRow>(auth.apiKeyId, Prisma.sql`
      SELECT ${COLUMNS} FROM portfolios p
      WHERE ${reachablePortfolioSql(auth)} ${after}
      ORDER BY p.id LIMIT ${take}`);
    return rows.map(isoDates);
  }

  async findReachable(auth: AuthContext, id: string): Promise<PortfolioView | null> {
    const [row] = await this.reads.prepared<PortfolioRow>(auth.apiKeyId, Prisma.sql`
      SELECT ${COLUMNS} FROM portfolios p
      WHERE p.id = ${id} AND ${reachablePortfolioSql(auth)}`);
    return row ? isoDates(row) : null;
  }

  /** Fields not sent take the column defaults; both timestamps are the time of the write. */
  async create(organizationId: string, input: CreatePortfolioDto): Promise<PortfolioView> {
    const fields = sentFields(input);
    const now = new Date();
    const [row] = await this.db.client.$queryRaw<PortfolioRow[]>`
      INSERT INTO portfolios AS p (id, organization_id, ${Prisma.join(fields.map((f) => f.column))}, created_at, updated_at)
      VALUES (${newId('pf')}, ${organizationId}, ${Prisma.join(fields.map((f) => f.value))}, ${now}, ${now})
      RETURNING ${COLUMNS}`;
    return isoDates(row);
  }

  /** Writes the fields sent and updated_at; null when the portfolio does not exist. */
  async update(id: string, input: UpdatePortfolioDto): Promise<PortfolioView | null> {
    const sets = sentFields(input).map((f) => Prisma.sql`${f.column} = ${f.value}`);
    const [row] = await this.db.client.$queryRaw<PortfolioRow[]>`
      UPDATE portfolios AS p SET ${Prisma.join([...sets, Prisma.sql`updated_at = ${new Date()}`])}
      WHERE p.id = ${id}
      RETURNING ${COLUMNS}`;
    return row ? isoDates(row) : null;
  }

  /** Ids among `ids` that are portfolios of the organization (for key restrictions). */
  async idsOfOrganization(organizationId: string, ids: string[]): Promise<Set<string>> {
    const rows = await this.db.client.portfolio.findMany({ where: { organizationId, id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }
}
