import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Authenticator } from './authenticator';

/**
 * Attaches the caller to the request. The work is Authenticator's, usually already done by the
 * public listener's preParsing hook before the body was read; this guard keeps authentication
 * first in every public route's guard chain (@PublicRoute) whatever reached the route.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly authenticator: Authenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.caller = await this.authenticator.authenticate(request);
    return true;
  }
}
