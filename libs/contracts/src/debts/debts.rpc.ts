import type { ItemBody, ListBody } from '../pagination';
import { ByIdInput, publicRead } from '../rpc/contract';
import type { DebtListQueryDto, DebtView } from './debt.dto';

export const DebtsRpc = {
  list: publicRead<DebtListQueryDto, ListBody<DebtView>>('debts.list'),
  get: publicRead<ByIdInput, ItemBody<DebtView>>('debts.get'),
} as const;
