import { Controller } from '@nestjs/common';
import {
  AuthContext, ByIdInput, CampaignsRpc, CampaignTransitionDto, CreateCampaignDto, ListCampaignsQueryDto, UnderPortfolioInput, UpdateInput,
} from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { CampaignsService } from './campaigns.service';

@Controller()
export class CampaignsHandlers {
  constructor(private readonly campaigns: CampaignsService) {}

  @Handles(CampaignsRpc.list)
  list(input: ListCampaignsQueryDto, auth: AuthContext) {
    return this.campaigns.list(auth, input);
  }

  @Handles(CampaignsRpc.get)
  async get(input: ByIdInput, auth: AuthContext) {
    return { data: await this.campaigns.get(auth, input.id) };
  }

  @Handles(CampaignsRpc.create)
  async create(input: UnderPortfolioInput<CreateCampaignDto>) {
    return { data: await this.campaigns.create(input.portfolioId, input.body) };
  }

  @Handles(CampaignsRpc.transition)
  async transition(input: UpdateInput<CampaignTransitionDto>) {
    return { data: await this.campaigns.transition(input.id, input.body) };
  }
}
