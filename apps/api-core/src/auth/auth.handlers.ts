import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, ErrorCode, MeView, PublicRequest, RpcPattern, Scope, VerifiedKey, VerifyKeyInput } from '@dc/contracts';
import { timingSafeEqual } from 'node:crypto';
import { PortfoliosRepository } from '../portfolios/portfolios.repository';
import { item, ok } from '../rpc/reply';
import { AuthRepository } from './auth.repository';

@Controller()
export class AuthHandlers {
  constructor(
    private readonly auth: AuthRepository,
    private readonly portfolios: PortfoliosRepository,
  ) {}

  /** The gateway's cache miss: the key (by hash) → who it is, or 401 for unknown/revoked keys. */
  @MessagePattern(RpcPattern.AuthVerifyKey)
  async verify(@Payload() input: VerifyKeyInput) {
    const key = await this.auth.findKeyByHash(input.keyHash);
    // The index lookup already matched; the constant-time compare guards against any future
    // lookup that is not an exact match (e.g. by prefix).
    const matches = key !== null && timingSafeEqual(Buffer.from(key.keyHash), Buffer.from(input.keyHash));
    if (!key || !matches || key.revokedAt) {
      throw new AppError(ErrorCode.Unauthorized, 'The API key is not valid.');
    }
    const verified: VerifiedKey = {
      apiKeyId: key.id,
      organizationId: key.organizationId,
      organizationActive: key.organization.status === 'active',
      scopes: key.scopes as Scope[],
      portfolioIds: key.portfolioIds,
      expiresAt: key.expiresAt?.toISOString() ?? null,
    };
    return ok(verified);
  }

  @MessagePattern(RpcPattern.MeGet)
  async me(@Payload() { auth }: PublicRequest) {
    const key = await this.auth.findKeyById(auth.apiKeyId);
    if (!key) throw new AppError(ErrorCode.Unauthorized, 'The API key is not valid.');
    const view: MeView = {
      apiKey: {
        id: key.id,
        name: key.name,
        keyPrefix: key.keyPrefix,
        scopes: key.scopes,
        expiresAt: key.expiresAt?.toISOString() ?? null,
      },
      organization: { id: key.organization.id, name: key.organization.name, status: key.organization.status },
      portfolioCount: await this.portfolios.countReachable(auth),
    };
    return item(view);
  }
}
