import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AppError, CampaignTransitionDto, CreateCampaignDto, cursorAfter, ErrorCode, ListCampaignsQueryDto, PublicRequest,
  RpcPattern, toPage,
} from '@dc/contracts';
import { item, ok } from '../rpc/reply';
import { assertCampaignTransition } from './campaign-transitions';
import { CampaignRow, EMPTY_METRICS, toCampaignMetrics, toCampaignView } from './campaign.mapper';
import { CampaignsRepository } from './campaigns.repository';

@Controller()
export class CampaignsHandlers {
  constructor(private readonly campaigns: CampaignsRepository) {}

  /** A page of campaigns and their metrics: two queries whatever the page size. */
  @MessagePattern(RpcPattern.CampaignsList)
  async list(@Payload() { auth, input }: PublicRequest<ListCampaignsQueryDto>) {
    const filter = { portfolioId: input.portfolioId, statuses: input.status };
    const rows = await this.campaigns.listReachable(auth, filter, cursorAfter(input.cursor), input.limit + 1);
    const metrics = await this.campaigns.metrics(rows.slice(0, input.limit).map((r) => r.id));
    return ok(toPage(rows, input.limit, (row) => toCampaignView(row, toCampaignMetrics(metrics.get(row.id)))));
  }

  @MessagePattern(RpcPattern.CampaignsGet)
  async get(@Payload() { auth, input }: PublicRequest<{ id: string }>) {
    const row = await this.campaigns.findReachable(auth, input.id);
    if (!row) throw AppError.notFound('campaign');
    return item(await this.withMetrics(row));
  }

  @MessagePattern(RpcPattern.OperatorCampaignCreate)
  async create(@Payload() { portfolioId, body }: { portfolioId: string; body: CreateCampaignDto }) {
    if (!(await this.campaigns.findPortfolio(portfolioId))) throw AppError.notFound('portfolio');
    const startsAt = body.startsAt === undefined ? null : new Date(body.startsAt);
    const endsAt = body.endsAt === undefined ? null : new Date(body.endsAt);
    if (startsAt && endsAt && endsAt < startsAt) {
      throw AppError.validation('endsAt must not be before startsAt', [{ message: 'endsAt must not be before startsAt', path: 'endsAt' }]);
    }
    const row = await this.campaigns.insert({
      portfolioId,
      name: body.name,
      description: body.description ?? null,
      channel: body.channel ?? 'voice',
      startsAt,
      endsAt,
    });
    return item(toCampaignView(row, EMPTY_METRICS), 201);
  }

  /** Moves along the transition table; an illegal move is 409 invalid_state_transition. */
  @MessagePattern(RpcPattern.OperatorCampaignTransition)
  async transition(@Payload() { id, body }: { id: string; body: CampaignTransitionDto }) {
    const current = await this.campaigns.findById(id);
    if (!current) throw AppError.notFound('campaign');
    assertCampaignTransition(current.status, body.to);
    const moved = await this.campaigns.transition(id, current.status, body.to);
    if (!moved) throw new AppError(ErrorCode.InvalidStateTransition, 'The campaign changed status meanwhile; read it and retry.');
    return item(await this.withMetrics(moved));
  }

  private async withMetrics(row: CampaignRow) {
    const metrics = await this.campaigns.metrics([row.id]);
    return toCampaignView(row, toCampaignMetrics(metrics.get(row.id)));
  }
}
