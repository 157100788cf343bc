import { Controller } from '@nestjs/common';
import {
  AuthContext, ByIdInput, CreatePortfolioDto, ListQueryDto, PortfoliosRpc, UnderOrganizationInput, UpdateInput, UpdatePortfolioDto,
} from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { PortfoliosService } from './portfolios.service';

@Controller()
export class PortfoliosHandlers {
  constructor(private readonly portfolios: PortfoliosService) {}

  @Handles(PortfoliosRpc.list)
  list(input: ListQueryDto, auth: AuthContext) {
    return this.portfolios.list(auth, input);
  }

  @Handles(PortfoliosRpc.get)
  async get(input: ByIdInput, auth: AuthContext) {
    return { data: await this.portfolios.get(auth, input.id) };
  }

  @Handles(PortfoliosRpc.create)
  async create(input: UnderOrganizationInput<CreatePortfolioDto>) {
    return { data: await this.portfolios.create(input.organizationId, input.body) };
  }

  @Handles(PortfoliosRpc.update)
  async update(input: UpdateInput<UpdatePortfolioDto>) {
    return { data: await this.portfolios.update(input.id, input.body) };
  }
}
