/** The Payment resource (spec: Resources, Payment): API responses and the payment.registered event. */
export interface PaymentView {
  id: string;
  /** Client idempotency key; null when the payment did not come through POST /v1/payments. */
  externalId: string | null;
  portfolioId: string;
  debtorId: string;
  debtId: string | null;
  promiseId: string | null;
  amount: number;
  currency: string;
  /** Date or date-time text, as stored. */
  paymentDate: string;
  paymentMethod: string;
  reference: string | null;
  createdAt: string;
  updatedAt: string;
}
