import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AppError, CreatePortfolioDto, cursorAfter, ListQueryDto, PublicRequest, RpcPattern, toPage, UpdatePortfolioDto,
} from '@dc/contracts';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { item, ok } from '../rpc/reply';
import { toPortfolioView } from './portfolio.mapper';
import { PortfoliosRepository } from './portfolios.repository';

@Controller()
export class PortfoliosHandlers {
  constructor(
    private readonly portfolios: PortfoliosRepository,
    private readonly organizations: OrganizationsRepository,
  ) {}

  @MessagePattern(RpcPattern.PortfoliosList)
  async list(@Payload() { auth, input }: PublicRequest<ListQueryDto>) {
    const rows = await this.portfolios.listReachable(auth, cursorAfter(input.cursor), input.limit + 1);
    return ok(toPage(rows, input.limit, toPortfolioView));
  }

  @MessagePattern(RpcPattern.PortfoliosGet)
  async get(@Payload() { auth, input }: PublicRequest<{ id: string }>) {
    const row = await this.portfolios.findReachable(auth, input.id);
    if (!row) throw AppError.notFound('portfolio');
    return item(toPortfolioView(row));
  }

  @MessagePattern(RpcPattern.OperatorPortfolioCreate)
  async create(@Payload() input: { organizationId: string; body: CreatePortfolioDto }) {
    if (!(await this.organizations.findById(input.organizationId))) throw AppError.notFound('organization');
    return item(toPortfolioView(await this.portfolios.create(input.organizationId, input.body)), 201);
  }

  @MessagePattern(RpcPattern.OperatorPortfolioUpdate)
  async update(@Payload() input: { id: string; body: UpdatePortfolioDto }) {
    if (!(await this.portfolios.findById(input.id))) throw AppError.notFound('portfolio');
    return item(toPortfolioView(await this.portfolios.update(input.id, input.body)));
  }
}
