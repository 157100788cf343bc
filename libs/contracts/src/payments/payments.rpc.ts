import type { ItemBody, ListBody } from '../pagination';
import { ByIdInput, operatorRpc, publicRead, publicRpc, UnderPortfolioInput } from '../rpc/contract';
import type { ListPaymentsQueryDto, OperatorRegisterPaymentDto, RegisterPaymentDto } from './payment.dto';
import type { PaymentView } from './payment.view';

export const PaymentsRpc = {
  list: publicRead<ListPaymentsQueryDto, ListBody<PaymentView>>('payments.list'),
  get: publicRead<ByIdInput, ItemBody<PaymentView>>('payments.get'),
  /** 201 when created; 200 for an identical retry (same externalId and values). */
  register: publicRpc<RegisterPaymentDto, ItemBody<PaymentView>>('payments.register', { status: 201, alsoStatus: [200] }),
  /** Panel and collection-link payments: always a new payment, externalId null. */
  registerFromOperator: operatorRpc<UnderPortfolioInput<OperatorRegisterPaymentDto>, ItemBody<PaymentView>>('operator.payments.register', {
    status: 201,
  }),
} as const;
