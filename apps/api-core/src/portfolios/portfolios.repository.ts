import { Injectable } from '@nestjs/common';
import { AuthContext, CreatePortfolioDto, UpdatePortfolioDto } from '@dc/contracts';
import { Database, newId } from '@dc/database';
import { reachablePortfolioWhere } from '../reach/portfolio-reach';

@Injectable()
export class PortfoliosRepository {
  constructor(private readonly db: Database) {}

  /** One keyset page (limit + 1 rows, id order) of the portfolios the key can reach. */
  listReachable(auth: AuthContext, afterId: string | null, take: number) {
    return this.db.client.portfolio.findMany({
      where: { ...reachablePortfolioWhere(auth), ...(afterId ? { id: { gt: afterId } } : {}) },
      orderBy: { id: 'asc' },
      take,
    });
  }

  findReachable(auth: AuthContext, id: string) {
    return this.db.client.portfolio.findFirst({ where: { AND: [reachablePortfolioWhere(auth), { id }] } });
  }

  countReachable(auth: AuthContext): Promise<number> {
    return this.db.client.portfolio.count({ where: reachablePortfolioWhere(auth) });
  }

  findById(id: string) {
    return this.db.client.portfolio.findUnique({ where: { id } });
  }

  create(organizationId: string, input: CreatePortfolioDto) {
    return this.db.client.portfolio.create({ data: { id: newId('pf'), organizationId, ...input } });
  }

  update(id: string, input: UpdatePortfolioDto) {
    return this.db.client.portfolio.update({ where: { id }, data: input });
  }

  /** Ids among `ids` that are portfolios of the organization (for key restrictions). */
  async idsOfOrganization(organizationId: string, ids: string[]): Promise<Set<string>> {
    const rows = await this.db.client.portfolio.findMany({ where: { organizationId, id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }
}
