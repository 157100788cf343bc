import { ListQueryDto } from '../common/list-query.dto';
import { CommaListOf, IdFilter } from '../common/query-fields';

/** Spec: Campaign status. Moves are in docs/adr/0013 (api-core campaigns/campaign-transitions.ts). */
export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'active', 'paused', 'completed', 'archived'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_CHANNELS = ['voice', 'sms', 'email', 'whatsapp'] as const;
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number];

/** Aggregates over the campaign's calls and the promises taken in them. */
export interface CampaignMetricsView {
  callsTotal: number;
  callsCompleted: number;
  /** Distinct debtors with at least one completed call. */
  debtorsReached: number;
  /** Promises whose call belongs to the campaign, whatever their status. */
  promisesTotal: number;
  /** Sum of those promises per currency (amounts of different currencies are never added), by currency code. */
  promisedAmounts: { currency: string; amount: number }[];
}

export interface CampaignView {
  id: string;
  portfolioId: string;
  name: string;
  description: string | null;
  channel: string;
  status: string;
  startsAt: string | null;
  endsAt: string | null;
  createdAt: string;
  updatedAt: string;
  metrics: CampaignMetricsView;
}

export class ListCampaignsQueryDto extends ListQueryDto {
  @IdFilter()
  portfolioId?: string;

  @CommaListOf(CAMPAIGN_STATUSES)
  status?: CampaignStatus[];
}
