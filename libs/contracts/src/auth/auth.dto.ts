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
}

export interface VerifyKeyInput {
  keyHash: string;
}
