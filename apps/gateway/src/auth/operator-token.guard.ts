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
    const token = bearerToken(authorization);
    if (!token || !timingSafeEqual(digest(token), this.expected)) {
      throw new AppError(ErrorCode.Unauthorized, 'Missing or wrong operator token: send Authorization: Bearer <OPERATOR_TOKEN>.');
    }
  }
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
