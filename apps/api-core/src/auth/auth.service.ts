import { Injectable } from '@nestjs/common';
import { AppError, AuthContext, ErrorCode, Scope, VerifiedKey } from '@dc/contracts';
import { timingSafeEqual } from 'node:crypto';
import { AuthRepository } from './auth.repository';

const notValid = () => new AppError(ErrorCode.Unauthorized, 'The API key is not valid.');

@Injectable()
export class AuthService {
  constructor(private readonly auth: AuthRepository) {}

  /**
   * The gateway's cache miss: the key (by hash) → who it is and its GET /v1/me body (the gateway
   * serves /me from its cache), or 401 for unknown/revoked keys.
   */
  async verify(keyHash: string): Promise<VerifiedKey> {
    const key = await this.auth.findKeyByHash(keyHash);
    // The index lookup already matched; the constant-time compare guards against any future
    // lookup that is not an exact match (e.g. by prefix).
    const matches = key !== null && timingSafeEqual(Buffer.from(key.keyHash), Buffer.from(keyHash));
    if (!key || !matches || key.revokedAt) throw notValid();
    const expiresAt = key.expiresAt?.toISOString() ?? null;
    const reach: AuthContext = { apiKeyId: key.id, organizationId: key.organizationId, portfolioIds: key.portfolioIds };
    return {
      apiKeyId: key.id,
      organizationId: key.organizationId,
      organizationActive: key.organization.status === 'active',
      scopes: key.scopes as Scope[],
      portfolioIds: key.portfolioIds,
      expiresAt,
      identity: {
        apiKey: { id: key.id, name: key.name, keyPrefix: key.keyPrefix, scopes: key.scopes, expiresAt },
        organization: { id: key.organization.id, name: key.organization.name, status: key.organization.status },
        portfolioCount: await this.auth.countReachablePortfolios(reach),
      },
    };
  }
}
