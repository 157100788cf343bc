import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AppError, CreateCallDto, cursorAfter, ListCallsQueryDto, parseInstantBound, PublicRequest, RpcPattern, toPage,
  UpdateCallDto, WebhookEventType,
} from '@dc/contracts';
import { OutboxWriter, Tx } from '../outbox/outbox.writer';
import { item, ok } from '../rpc/reply';
import { assertCallStatusChange, completesCall } from './call-status';
import { CallRowWithAnalysis, toCallListItem, toCallView } from './call.mapper';
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

@Controller()
export class CallsHandlers {
  constructor(
    private readonly calls: CallsRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  @MessagePattern(RpcPattern.CallsList)
  async list(@Payload() { auth, input }: PublicRequest<ListCallsQueryDto>) {
    const filter = {
      portfolioId: input.portfolioId,
      debtorId: input.debtorId,
      campaignId: input.campaignId,
      statuses: input.status,
      direction: input.direction,
      // Validated by the gateway with the same function.
      from: input.from === undefined ? undefined : (parseInstantBound(input.from, 'from') ?? undefined),
      to: input.to === undefined ? undefined : (parseInstantBound(input.to, 'to') ?? undefined),
    };
    const rows = await this.calls.listReachable(auth, filter, cursorAfter(input.cursor), input.limit + 1);
    return ok(toPage(rows, input.limit, toCallListItem));
  }

  @MessagePattern(RpcPattern.CallsGet)
  async get(@Payload() { auth, input }: PublicRequest<{ id: string }>) {
    const row = await this.calls.findReachable(auth, input.id);
    if (!row) throw AppError.notFound('call');
    return item(toCallView(row));
  }

  /** A call created already completed emits call.completed in the same transaction. */
  @MessagePattern(RpcPattern.OperatorCallCreate)
  async create(@Payload() { portfolioId, body }: { portfolioId: string; body: CreateCallDto }) {
    const portfolio = await this.calls.findPortfolio(portfolioId);
    if (!portfolio) throw AppError.notFound('portfolio');
    const row = await this.calls.inTransaction(async (tx) => {
      if (!(await this.calls.liveDebtorExists(tx, portfolio.id, body.debtorId))) throw AppError.notFound('debtor');
      await this.checkCampaign(tx, portfolio.id, body.campaignId);
      const created = await this.calls.insert(tx, { ...changesOf(body), portfolioId: portfolio.id, debtorId: body.debtorId, direction: body.direction, status: body.status });
      if (completesCall(null, created.status)) await this.emitCompleted(tx, portfolio.organizationId, created);
      return created;
    });
    return item(toCallView(row), 201);
  }

  /** The change to completed emits call.completed; a completed call never changes status again. */
  @MessagePattern(RpcPattern.OperatorCallUpdate)
  async update(@Payload() { id, body }: { id: string; body: UpdateCallDto }) {
    const row = await this.calls.inTransaction(async (tx) => {
      const current = await this.calls.lock(tx, id);
      if (!current) throw AppError.notFound('call');
      if (body.status !== undefined) assertCallStatusChange(current.status, body.status);
      await this.checkCampaign(tx, current.portfolioId, body.campaignId);
      const updated = await this.calls.update(tx, id, changesOf(body));
      if (completesCall(current.status, updated.status)) await this.emitCompleted(tx, current.organizationId, updated);
      return updated;
    });
    return item(toCallView(row));
  }

  private async checkCampaign(tx: Tx, portfolioId: string, campaignId: string | null | undefined): Promise<void> {
    if (campaignId && !(await this.calls.campaignExists(tx, portfolioId, campaignId))) throw AppError.notFound('campaign');
  }

  private emitCompleted(tx: Tx, organizationId: string, row: CallRowWithAnalysis): Promise<void> {
    return this.outbox.append(tx, {
      organizationId,
      portfolioId: row.portfolioId,
      type: WebhookEventType.CallCompleted,
      payload: toCallListItem(row),
    });
  }
}
