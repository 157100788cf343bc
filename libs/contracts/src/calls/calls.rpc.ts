import type { ItemBody, ListBody } from '../pagination';
import { ByIdInput, operatorRpc, publicRead, UnderPortfolioInput, UpdateInput } from '../rpc/contract';
import type { CreateCallDto, UpdateCallDto } from './call-intake.dto';
import type { CallListItemView, CallView, ListCallsQueryDto } from './call.dto';

export const CallsRpc = {
  list: publicRead<ListCallsQueryDto, ListBody<CallListItemView>>('calls.list'),
  get: publicRead<ByIdInput, ItemBody<CallView>>('calls.get'),
  create: operatorRpc<UnderPortfolioInput<CreateCallDto>, ItemBody<CallView>>('operator.calls.create', { status: 201 }),
  update: operatorRpc<UpdateInput<UpdateCallDto>, ItemBody<CallView>>('operator.calls.update'),
} as const;
