import type { ListQueryDto } from '../common/list-query.dto';
import type { ItemBody, ListBody } from '../pagination';
import { ByIdInput, operatorRpc, publicRead, UnderOrganizationInput, UpdateInput } from '../rpc/contract';
import type { CreatePortfolioDto, UpdatePortfolioDto } from './portfolio.dto';
import type { PortfolioView } from './portfolio.view';

export const PortfoliosRpc = {
  list: publicRead<ListQueryDto, ListBody<PortfolioView>>('portfolios.list'),
  get: publicRead<ByIdInput, ItemBody<PortfolioView>>('portfolios.get'),
  create: operatorRpc<UnderOrganizationInput<CreatePortfolioDto>, ItemBody<PortfolioView>>('operator.portfolios.create', { status: 201 }),
  update: operatorRpc<UpdateInput<UpdatePortfolioDto>, ItemBody<PortfolioView>>('operator.portfolios.update'),
} as const;
