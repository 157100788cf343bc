/** Public representation of a portfolio (GET /v1/portfolios, /v1/portfolios/{id}). */
export interface PortfolioView {
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
  operatingInfoLastActivity: string | null;
  compliancePiiRedactionEnabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** GET /v1/me */
export interface MeView {
  apiKey: {
    id: string;
    name: string;
    keyPrefix: string;
    scopes: string[];
    expiresAt: string | null;
  };
  organization: { id: string; name: string; status: string };
  portfolioCount: number;
}
