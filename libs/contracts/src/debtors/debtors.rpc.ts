import type { ItemBody, ListBody } from '../pagination';
import { ByIdInput, operatorRpc, publicRead, publicRpc } from '../rpc/contract';
import type { DebtorBatchInput, DebtorBatchView } from './debtor-batch.dto';
import type { DebtorErasureView, DebtorListQueryDto, DebtorView } from './debtor.dto';

export const DebtorsRpc = {
  list: publicRead<DebtorListQueryDto, ListBody<DebtorView>>('debtors.list'),
  get: publicRead<ByIdInput, ItemBody<DebtorView>>('debtors.get'),
  batchWrite: publicRpc<DebtorBatchInput, ItemBody<DebtorBatchView>>('debtors.batch-write'),
  delete: operatorRpc<ByIdInput, void>('operator.debtors.delete', { status: 204 }),
  erase: operatorRpc<ByIdInput, ItemBody<DebtorErasureView>>('operator.debtors.erase'),
} as const;
