import { Injectable } from '@nestjs/common';
import {
  AppError, AuthContext, CallListItemView, CallView, CreateCallDto, ListBody, ListCallsQueryDto, UpdateCallDto,
} from '@dc/contracts';
import { eventEmission } from '../outbox/event-emission';
import { pageOf } from '../shared/page';
import { assertCallStatusChange, completesCall } from './call-status';
import { CallChanges, CallsRepository } from './calls.repository';

const date = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value));

function changesOf(body: UpdateCallDto): CallChanges {
  return {
    status: body.status,
    campaignId: body.campaignId,
    fromNumber: body.fromNumber,
    toNumber: body.toNumber,
    connectedAt: date(body.connectedAt),
    effectiveDurationSec: body.effectiveDurationSec,
    metricsStartTime: date(body.metricsStartTime),
    metricsEndTime: date(body.metricsEndTime),
    analysis: body.analysis,
  };
}

/** call.completed carries the list item: no `analysis` key at all. */
function listItemOf(call: CallView): CallListItemView {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { analysis, ...item } = call;
  return item;
}

/**
 * Calls (docs/adr/0013): reads within the key's reach; operator intake and updates, where a call's
 * status moves only while it is live (call-status.ts) and its move to completed emits
 * call.completed, once, in the same transaction.
 */
@Injectable()
export class CallsService {
  constructor(private readonly calls: CallsRepository) {}

  async list(auth: AuthContext, query: ListCallsQueryDto): Promise<ListBody<CallListItemView>> {
    const filter = {
      portfolioId: query.portfolioId,
      debtorId: query.debtorId,
      campaignId: query.campaignId,
      statuses: query.status,
      direction: query.direction,
      // Decoded by the DTO to ISO instants.
      from: query.from === undefined ? undefined : new Date(query.from),
      to: query.to === undefined ? undefined : new Date(query.to),
    };
    const { rows, resumeAfter } = await this.calls.listReachable(auth, filter, query.cursor ?? null, query.limit + 1);
    return pageOf(rows, query.limit, resumeAfter);
  }

  async get(auth: AuthContext, id: string): Promise<CallView> {
    const call = await this.calls.findReachable(auth, id);
    if (!call) throw AppError.notFound('call');
    return call;
  }

  /**
   * One read of what the rules decide on, one statement that writes the call and, for a call created
   * already completed, its call.completed event.
   */
  async create(portfolioId: string, body: CreateCallDto): Promise<CallView> {
    const context = await this.calls.context(portfolioId, body.debtorId, body.campaignId ?? null);
    if (!context) throw AppError.notFound('portfolio');
    if (!context.debtorLive) throw AppError.notFound('debtor');
    if (body.campaignId && !context.campaignFound) throw AppError.notFound('campaign');
    const event = completesCall(null, body.status) ? eventEmission(context.eventSource, context.organizationId) : null;
    return this.calls.insert({ ...changesOf(body), portfolioId, debtorId: body.debtorId, direction: body.direction, status: body.status }, event);
  }

  /** The change to completed emits call.completed; a final call never changes status again. */
  async update(id: string, body: UpdateCallDto): Promise<CallView> {
    return this.calls.transaction(async (tx) => {
      const current = await this.calls.lock(tx, id, body.campaignId ?? null);
      if (!current) throw AppError.notFound('call');
      if (body.status !== undefined) assertCallStatusChange(current.status, body.status);
      if (body.campaignId && !current.campaignFound) throw AppError.notFound('campaign');
      const updated = await this.calls.update(tx, id, changesOf(body));
      const emission = completesCall(current.status, updated.status) ? eventEmission(current.eventSource, current.organizationId) : null;
      if (emission) await this.calls.recordCompleted(tx, listItemOf(updated), emission);
      return updated;
    });
  }
}
