import { IsIn, IsOptional } from 'class-validator';
import { ListQueryDto } from '../common/list-query.dto';
import { CommaListOf, IdFilter, InstantBound } from '../common/query-fields';

/** Call statuses (the spec leaves them "not shown"; docs/adr/0013). */
export const CALL_STATUSES = ['queued', 'ringing', 'in_progress', 'completed', 'no_answer', 'busy', 'failed', 'cancelled'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
/** Statuses a call never leaves: its status cannot change once it has one of these. */
export const FINAL_CALL_STATUSES: readonly CallStatus[] = ['completed', 'no_answer', 'busy', 'failed', 'cancelled'];

export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

export interface CallAnalysisView {
  summary: string;
  sentiment: number;
  /** Free text on how the conversation ended. */
  disposition: string;
  outcomes: string[];
}

/** A call in lists and in the call.completed event: never carries `analysis`. */
export interface CallListItemView {
  id: string;
  portfolioId: string;
  debtorId: string;
  campaignId: string | null;
  direction: string;
  status: string;
  fromNumber: string | null;
  toNumber: string | null;
  connectedAt: string | null;
  effectiveDurationSec: number | null;
  metricsStartTime: string | null;
  metricsEndTime: string | null;
  createdAt: string;
  updatedAt: string;
}

/** GET /v1/calls/{id} (and operator responses): the list item plus `analysis`, null until analysed. */
export interface CallView extends CallListItemView {
  analysis: CallAnalysisView | null;
}

/**
 * Query of GET /v1/calls. `from`/`to` bound the call's createdAt (docs/adr/0013); they arrive at api-core
 * decoded to ISO instants (InstantBound).
 */
export class ListCallsQueryDto extends ListQueryDto {
  @IdFilter()
  portfolioId?: string;

  @IdFilter()
  debtorId?: string;

  @IdFilter()
  campaignId?: string;

  @CommaListOf(CALL_STATUSES)
  status?: CallStatus[];

  @IsOptional() @IsIn(CALL_DIRECTIONS, { message: `direction must be one of: ${CALL_DIRECTIONS.join(', ')}` })
  direction?: CallDirection;

  @InstantBound('from')
  from?: string;

  @InstantBound('to')
  to?: string;
}
