import { Transform } from 'class-transformer';
import { IsIn, IsOptional } from 'class-validator';
import { ListQueryDto } from '../common/list-query.dto';
import { IdFilter } from '../common/query-fields';

/** Debt statuses (spec: States, Debt status). */
export const DEBT_STATUSES = ['active', 'paid', 'cancelled'] as const;
export type DebtStatus = (typeof DEBT_STATUSES)[number];

/** GET /v1/debts. `status` takes ONE value: a comma list is 400 validation_error (spec rule 5). */
export class DebtListQueryDto extends ListQueryDto {
  @IdFilter()
  portfolioId?: string;

  @IdFilter()
  debtorId?: string;

  // An empty `status=` means no filter, as on the lists that take several values.
  @Transform(({ value }) => (value === '' ? undefined : value))
  @IsOptional()
  @IsIn(DEBT_STATUSES, { message: `status must be one of: ${DEBT_STATUSES.join(', ')} (a single value, not a list)` })
  status?: DebtStatus;
}

/** Public representation of a debt (GET /v1/debts, /v1/debts/{id}). */
export interface DebtView {
  id: string;
  portfolioId: string;
  debtorId: string;
  externalId: string;
  totalAmount: number;
  paidAmount: number;
  currency: string;
  status: string;
  /** Text as loaded: a date or a date-time. */
  dueDate: string | null;
  issueDate: string | null;
  description: string | null;
  debtType: string | null;
  createdAt: string;
  updatedAt: string;
}
