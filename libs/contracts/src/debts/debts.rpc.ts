import type { ItemBody, ListBody } from '../pagination';
import { ByIdInput, publicRpc } from '../rpc/contract';
import type { DebtListQueryDto, DebtView } from './debt.dto';

export const DebtsRpc = {
  list: publicRpc<DebtListQueryDto, ListBody<DebtView>>('debts.list'),
  get: publicRpc<ByIdInput, ItemBody<DebtView>>('debts.get'),
} as const;
