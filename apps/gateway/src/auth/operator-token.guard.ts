import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { CONFIG } from '../tokens';
import { bearerToken } from './authenticator';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The operator API's bearer token, compared in constant time. */
@Injectable()
export class OperatorTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(CONFIG) config: AppConfig) {
    this.expected = digest(config.gateway.operatorToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const token = bearerToken(context.switchToHttp().getRequest<FastifyRequest>().headers.authorization);
    if (!token || !timingSafeEqual(digest(token), this.expected)) {
      throw new AppError(ErrorCode.Unauthorized, 'Missing or wrong operator token: send Authorization: Bearer <OPERATOR_TOKEN>.');
    }
    return true;
  }
}
