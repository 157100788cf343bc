import type { ItemBody, ListBody } from '../pagination';
import { ByIdInput, operatorRpc, publicRead, UnderPortfolioInput, UpdateInput } from '../rpc/contract';
import type { CampaignTransitionDto, CreateCampaignDto } from './campaign-intake.dto';
import type { CampaignView, ListCampaignsQueryDto } from './campaign.dto';

export const CampaignsRpc = {
  list: publicRead<ListCampaignsQueryDto, ListBody<CampaignView>>('campaigns.list'),
  get: publicRead<ByIdInput, ItemBody<CampaignView>>('campaigns.get'),
  create: operatorRpc<UnderPortfolioInput<CreateCampaignDto>, ItemBody<CampaignView>>('operator.campaigns.create', { status: 201 }),
  transition: operatorRpc<UpdateInput<CampaignTransitionDto>, ItemBody<CampaignView>>('operator.campaigns.transition'),
} as const;
