import { CampaignMetricsView, CampaignView } from '@dc/contracts';

export interface CampaignRow {
  id: string;
  portfolioId: string;
  name: string;
  description: string | null;
  channel: string;
  status: string;
  startsAt: Date | null;
  endsAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One row of the page's metrics query; `amount` is numeric text, so sums stay exact until here. */
export interface CampaignMetricsRow {
  campaignId: string;
  callsTotal: number;
  callsCompleted: number;
  debtorsReached: number;
  promisesTotal: number;
  promisedAmounts: { currency: string; amount: string }[];
}

export const EMPTY_METRICS: CampaignMetricsView = { callsTotal: 0, callsCompleted: 0, debtorsReached: 0, promisesTotal: 0, promisedAmounts: [] };

export function toCampaignMetrics(row: CampaignMetricsRow | undefined): CampaignMetricsView {
  if (!row) return EMPTY_METRICS;
  return {
    callsTotal: row.callsTotal,
    callsCompleted: row.callsCompleted,
    debtorsReached: row.debtorsReached,
    promisesTotal: row.promisesTotal,
    promisedAmounts: row.promisedAmounts.map((a) => ({ currency: a.currency, amount: Number(a.amount) })),
  };
}

export function toCampaignView(row: CampaignRow, metrics: CampaignMetricsView): CampaignView {
  return {
    id: row.id,
    portfolioId: row.portfolioId,
    name: row.name,
    description: row.description,
    channel: row.channel,
    status: row.status,
    startsAt: row.startsAt?.toISOString() ?? null,
    endsAt: row.endsAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    metrics,
  };
}
