import { Injectable } from '@nestjs/common';
import {
  AppError, AuthContext, CampaignMetricsView, CampaignTransitionDto, CampaignView, CreateCampaignDto, ErrorCode, ListBody,
  ListCampaignsQueryDto, toPage,
} from '@dc/contracts';
import { LookupsRepository } from '../shared/lookups.repository';
import { assertCampaignTransition } from './campaign-transitions';
import { CampaignRecord, CampaignsRepository } from './campaigns.repository';

/** A campaign without calls yet. */
const NO_METRICS: CampaignMetricsView = { callsTotal: 0, callsCompleted: 0, debtorsReached: 0, promisesTotal: 0, promisedAmounts: [] };

/** Campaigns (docs/adr/0013): reads with their metrics, operator creation, moves along the transition table. */
@Injectable()
export class CampaignsService {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly lookups: LookupsRepository,
  ) {}

  /** A page of campaigns and their metrics: two queries whatever the page size. */
  async list(auth: AuthContext, query: ListCampaignsQueryDto): Promise<ListBody<CampaignView>> {
    const filter = { portfolioId: query.portfolioId, statuses: query.status };
    const rows = await this.campaigns.listReachable(auth, filter, query.cursor ?? null, query.limit + 1);
    const metrics = await this.campaigns.metrics(rows.slice(0, query.limit).map((r) => r.id), auth.apiKeyId);
    return toPage(rows, query.limit, (row) => ({ ...row, metrics: metrics.get(row.id) ?? NO_METRICS }));
  }

  async get(auth: AuthContext, id: string): Promise<CampaignView> {
    const campaign = await this.campaigns.findReachable(auth, id);
    if (!campaign) throw AppError.notFound('campaign');
    return this.withMetrics(campaign, auth.apiKeyId);
  }

  /** A draft campaign of the portfolio; it may not end before it starts. */
  async create(portfolioId: string, body: CreateCampaignDto): Promise<CampaignView> {
    if (!(await this.lookups.findPortfolio(portfolioId))) throw AppError.notFound('portfolio');
    const startsAt = body.startsAt === undefined ? null : new Date(body.startsAt);
    const endsAt = body.endsAt === undefined ? null : new Date(body.endsAt);
    if (startsAt && endsAt && endsAt < startsAt) {
      throw AppError.validation('endsAt must not be before startsAt', [{ message: 'endsAt must not be before startsAt', path: 'endsAt' }]);
    }
    const campaign = await this.campaigns.insert({
      portfolioId,
      name: body.name,
      description: body.description ?? null,
      channel: body.channel ?? 'voice',
      startsAt,
      endsAt,
    });
    return { ...campaign, metrics: NO_METRICS };
  }

  /** Moves along the transition table; an illegal move is 409 invalid_state_transition. */
  async transition(id: string, body: CampaignTransitionDto): Promise<CampaignView> {
    const current = await this.campaigns.findById(id);
    if (!current) throw AppError.notFound('campaign');
    assertCampaignTransition(current.status, body.to);
    const moved = await this.campaigns.transition(id, current.status, body.to);
    if (!moved) throw new AppError(ErrorCode.InvalidStateTransition, 'The campaign changed status meanwhile; read it and retry.');
    return this.withMetrics(moved, null);
  }

  /** `apiKeyId`: the public read's (where its campaign was read); null: the operator's. */
  private async withMetrics(campaign: CampaignRecord, apiKeyId: string | null): Promise<CampaignView> {
    const metrics = await this.campaigns.metrics([campaign.id], apiKeyId);
    return { ...campaign, metrics: metrics.get(campaign.id) ?? NO_METRICS };
  }
}
