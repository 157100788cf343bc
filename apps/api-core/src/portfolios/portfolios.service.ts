import { Injectable } from '@nestjs/common';
import { AppError, AuthContext, CreatePortfolioDto, ListBody, ListQueryDto, PortfolioView, UpdatePortfolioDto } from '@dc/contracts';
import { AuthInvalidator } from '../auth/auth-invalidator';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { LookupsRepository } from '../shared/lookups.repository';
import { pageOf } from '../shared/page';
import { PortfoliosRepository } from './portfolios.repository';

/**
 * Public reads and operator changes of portfolios. A change of which portfolios are active reaches
 * every gateway's key cache at once: it holds each key's /me, whose portfolioCount must agree with
 * the portfolio reads.
 */
@Injectable()
export class PortfoliosService {
  constructor(
    private readonly portfolios: PortfoliosRepository,
    private readonly organizations: OrganizationsRepository,
    private readonly lookups: LookupsRepository,
    private readonly invalidator: AuthInvalidator,
  ) {}

  async list(auth: AuthContext, query: ListQueryDto): Promise<ListBody<PortfolioView>> {
    return pageOf(await this.portfolios.listReachable(auth, query.cursor ?? null, query.limit + 1), query.limit);
  }

  async get(auth: AuthContext, id: string): Promise<PortfolioView> {
    const portfolio = await this.portfolios.findReachable(auth, id);
    if (!portfolio) throw AppError.notFound('portfolio');
    return portfolio;
  }

  async create(organizationId: string, body: CreatePortfolioDto): Promise<PortfolioView> {
    if (!(await this.organizations.findById(organizationId))) throw AppError.notFound('organization');
    const portfolio = await this.portfolios.create(organizationId, body);
    if (portfolio.status === 'active') await this.invalidator.organizationChanged(organizationId);
    return portfolio;
  }

  async update(id: string, body: UpdatePortfolioDto): Promise<PortfolioView> {
    if (!(await this.lookups.findPortfolio(id))) throw AppError.notFound('portfolio');
    const portfolio = await this.portfolios.update(id, body);
    if (!portfolio) throw AppError.notFound('portfolio');
    if (body.status !== undefined) await this.invalidator.organizationChanged(portfolio.organizationId);
    return portfolio;
  }
}
