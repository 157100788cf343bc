import type { ItemBody, ListBody } from '../pagination';
import type { PaymentView } from '../payments/payment.view';
import { operatorRpc, publicRead, UnderPortfolioInput, UpdateInput } from '../rpc/contract';
import type { CreatePromiseDto, FulfilPromiseDto, SetPromiseStatusDto } from './promise-intake.dto';
import type { ListPromisesQueryDto, PromiseView } from './promise.dto';

export interface FulfilledPromiseView {
  promise: PromiseView;
  payment: PaymentView;
}

export const PromisesRpc = {
  list: publicRead<ListPromisesQueryDto, ListBody<PromiseView>>('promises.list'),
  create: operatorRpc<UnderPortfolioInput<CreatePromiseDto>, ItemBody<PromiseView>>('operator.promises.create', { status: 201 }),
  setStatus: operatorRpc<UpdateInput<SetPromiseStatusDto>, ItemBody<PromiseView>>('operator.promises.set-status'),
  fulfil: operatorRpc<UpdateInput<FulfilPromiseDto>, ItemBody<FulfilledPromiseView>>('operator.promises.fulfil'),
} as const;
