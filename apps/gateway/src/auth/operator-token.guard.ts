import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { CONFIG } from '../tokens';
import { bearerToken } from './authenticator';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The operator API's bearer token, compared in constant time. */
export class OperatorToken {
  private readonly expected: Buffer;

  constructor(token: string) {
    this.expected = digest(token);
  }

  verify(authorization: string | undefined): void {
    if (!this.matches(bearerToken(authorization))) {
      throw new AppError(ErrorCode.Unauthorized, 'Missing or wrong operator token: send Authorization: Bearer <OPERATOR_TOKEN>.');
    }
  }

  /**
   * For pages a browser opens (the queue board): `Bearer <token>`, or HTTP Basic with the token as
   * the password (any user name), since a browser can only prompt for Basic credentials.
   */
  acceptsBearerOrBasic(authorization: string | undefined): boolean {
    return this.matches(bearerToken(authorization) ?? basicPassword(authorization));
  }

  private matches(token: string | null): boolean {
    // Compared over digests of equal length, so neither the token nor its length leaks through timing.
    return !!token && timingSafeEqual(digest(token), this.expected);
  }
}

/** The password of an `Authorization: Basic base64(user:password)` header, or null. */
export function basicPassword(header: string | undefined): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
}

/** Every operator route (the listener's preParsing hook checks the token earlier, before the body is read). */
@Injectable()
export class OperatorTokenGuard implements CanActivate {
  private readonly token: OperatorToken;

  constructor(@Inject(CONFIG) config: AppConfig) {
    this.token = new OperatorToken(config.gateway.operatorToken);
  }

  canActivate(context: ExecutionContext): boolean {
    this.token.verify(context.switchToHttp().getRequest<FastifyRequest>().headers.authorization);
    return true;
  }
}
