import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, hashApiKey, parseApiKey, RpcPattern, VerifiedKey } from '@dc/contracts';
import type { FastifyRequest } from 'fastify';
import { CoreClient } from '../core-client/core-client';
import { KeyCache } from './key-cache';

const UNAUTHORIZED_MESSAGES = {
  missing: 'Missing API key: send the header Authorization: Bearer <API_KEY>.',
  malformed: 'Malformed API key: expected svc_live_… or svc_test_… followed by 43 characters.',
  invalid: 'The API key is not valid: it does not exist, was revoked or has expired.',
};

/**
 * Bearer API key → caller. The format and checksum are checked before any lookup; the lookup
 * goes through the 60-second cache, then `auth.verify-key` on api-core.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly core: CoreClient,
    private readonly cache: KeyCache,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const key = bearerToken(request.headers.authorization);
    if (!key) throw new AppError(ErrorCode.Unauthorized, UNAUTHORIZED_MESSAGES.missing);
    if (!parseApiKey(key)) throw new AppError(ErrorCode.Unauthorized, UNAUTHORIZED_MESSAGES.malformed);

    const verified = await this.verify(hashApiKey(key), String(request.id));
    if (!verified || (verified.expiresAt && Date.parse(verified.expiresAt) <= Date.now())) {
      throw new AppError(ErrorCode.Unauthorized, UNAUTHORIZED_MESSAGES.invalid);
    }
    if (!verified.organizationActive) {
      throw new AppError(ErrorCode.OrganizationInactive, 'The organization of this API key is not active.');
    }
    request.caller = {
      apiKeyId: verified.apiKeyId,
      organizationId: verified.organizationId,
      portfolioIds: verified.portfolioIds,
      scopes: verified.scopes,
    };
    return true;
  }

  private async verify(keyHash: string, requestId: string): Promise<VerifiedKey | null> {
    const cached = this.cache.get(keyHash);
    if (cached !== undefined) return cached;
    try {
      const { body } = await this.core.call<VerifiedKey>(RpcPattern.AuthVerifyKey, { keyHash }, requestId);
      this.cache.set(keyHash, body);
      return body;
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCode.Unauthorized) {
        this.cache.set(keyHash, null);
        return null;
      }
      throw err;
    }
  }
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}
