import { CallAnalysisView, CallListItemView, CallView } from '@dc/contracts';

/** A calls row as Prisma returns it (model or raw query with camelCase aliases). */
export interface CallRow {
  id: string;
  portfolioId: string;
  debtorId: string;
  campaignId: string | null;
  direction: string;
  status: string;
  fromNumber: string | null;
  toNumber: string | null;
  connectedAt: Date | null;
  /** Prisma Decimal (numeric(12, 3)). */
  effectiveDurationSec: { toString(): string } | null;
  metricsStartTime: Date | null;
  metricsEndTime: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CallRowWithAnalysis extends CallRow {
  analysis: unknown;
}

/** List item and call.completed payload: no `analysis` key at all. */
export function toCallListItem(row: CallRow): CallListItemView {
  return {
    id: row.id,
    portfolioId: row.portfolioId,
    debtorId: row.debtorId,
    campaignId: row.campaignId,
    direction: row.direction,
    status: row.status,
    fromNumber: row.fromNumber,
    toNumber: row.toNumber,
    connectedAt: row.connectedAt?.toISOString() ?? null,
    effectiveDurationSec: row.effectiveDurationSec === null ? null : Number(row.effectiveDurationSec.toString()),
    metricsStartTime: row.metricsStartTime?.toISOString() ?? null,
    metricsEndTime: row.metricsEndTime?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toAnalysis(value: unknown): CallAnalysisView | null {
  if (value === null || typeof value !== 'object') return null;
  const a = value as Partial<CallAnalysisView>;
  return {
    summary: a.summary ?? '',
    sentiment: a.sentiment ?? 0,
    disposition: a.disposition ?? '',
    outcomes: a.outcomes ?? [],
  };
}

/** By-id read: the list item plus `analysis` (null until analysed). */
export function toCallView(row: CallRowWithAnalysis): CallView {
  return { ...toCallListItem(row), analysis: toAnalysis(row.analysis) };
}
