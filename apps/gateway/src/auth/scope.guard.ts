import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, ErrorCode, Scope } from '@dc/contracts';
import type { FastifyRequest } from 'fastify';

/** Metadata of a route's required scope (set by @PublicRoute's `scope`). */
export const REQUIRED_SCOPE = 'dc:required-scope';

@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const scope = this.reflector.get<Scope>(REQUIRED_SCOPE, context.getHandler());
    const caller = context.switchToHttp().getRequest<FastifyRequest>().caller;
    if (!caller?.scopes.includes(scope)) {
      throw new AppError(ErrorCode.Forbidden, `This endpoint requires the ${scope} scope, which this API key does not have.`);
    }
    return true;
  }
}
