import { ListQueryDto } from '../common/list-query.dto';
import { CommaListOf, IdFilter } from '../common/query-fields';

/** Spec: Promise status. A promise starts pending; the other four are final. */
export const PROMISE_STATUSES = ['pending', 'fulfilled', 'partial', 'broken', 'cancelled'] as const;
export type PromiseStatus = (typeof PROMISE_STATUSES)[number];

/** A promise of payment (GET /v1/promises items and the promise.created event). */
export interface PromiseView {
  id: string;
  portfolioId: string;
  debtorId: string;
  debtId: string | null;
  callId: string | null;
  amount: number;
  currency: string;
  /** Date or date-time text, as entered. */
  promiseDate: string;
  status: string;
  /** The payment that fulfilled the promise. */
  paymentId: string | null;
  /** Date text of that payment. */
  fulfillmentDate: string | null;
  createdAt: string;
  updatedAt: string;
}

export class ListPromisesQueryDto extends ListQueryDto {
  @IdFilter()
  portfolioId?: string;

  @IdFilter()
  debtorId?: string;

  @CommaListOf(PROMISE_STATUSES)
  status?: PromiseStatus[];
}
