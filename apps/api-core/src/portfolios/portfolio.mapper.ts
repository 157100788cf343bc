import { PortfolioView } from '@dc/contracts';

interface PortfolioRow {
  id: string;
  organizationId: string;
  status: string;
  identityName: string;
  identityDescription: string | null;
  identityDebtType: string | null;
  identityCurrency: string[];
  identityRegion: string | null;
  identityTimezone: string;
  operatingInfoMaxChannels: number;
  operatingInfoLastActivity: Date | null;
  compliancePiiRedactionEnabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export function toPortfolioView(row: PortfolioRow): PortfolioView {
  return {
    id: row.id,
    organizationId: row.organizationId,
    status: row.status,
    identityName: row.identityName,
    identityDescription: row.identityDescription,
    identityDebtType: row.identityDebtType,
    identityCurrency: row.identityCurrency,
    identityRegion: row.identityRegion,
    identityTimezone: row.identityTimezone,
    operatingInfoMaxChannels: row.operatingInfoMaxChannels,
    operatingInfoLastActivity: row.operatingInfoLastActivity?.toISOString() ?? null,
    compliancePiiRedactionEnabled: row.compliancePiiRedactionEnabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
