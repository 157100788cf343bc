import type { MeView } from '../portfolios/portfolio.view';
import { Scope } from '../scopes';

/** Result of `auth.verify-key`, cached by the gateway for up to 60 seconds. */
export interface VerifiedKey {
  apiKeyId: string;
  organizationId: string;
  organizationActive: boolean;
  scopes: Scope[];
  portfolioIds: string[];
  /** ISO time after which the key is expired, checked on every request against the cache. */
  expiresAt: string | null;
  /**
   * The key's GET /v1/me body as of this verification: the gateway answers /me from its key cache,
   * without a round trip. Operator changes of the key, its organization or a portfolio's status
   * clear the entry (auth.invalidate); otherwise it lags by at most the cache's 60 s (docs/adr/0024).
   */
  identity: MeView;
}

export interface VerifyKeyInput {
  keyHash: string;
}
