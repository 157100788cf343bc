import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authenticator } from '../auth/authenticator';
import { requireScope } from '../auth/scope';
import { checkRequestInput } from '../http/request-input.guard';
import { RateLimitPolicy } from '../rate-limit/rate-limit.policy';
import { PUBLIC_ROUTE, PublicRouteOptions } from './public-route.options';

/**
 * The policies of every public route, in their fixed order: authentication, rate limit (charged
 * even if the request is refused later, so every response carries the consumption headers; with
 * the route's cost), scope, the route's size limit, the request's input (RequestInputGuard's check).
 * One guard rather than one per policy: Nest awaits each guard through promises of its own, a
 * sixth of the promises a read request made (docs/adr/0039).
 */
@Injectable()
export class PublicRouteGuard implements CanActivate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly rateLimit: RateLimitPolicy,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.reflector.get<PublicRouteOptions>(PUBLIC_ROUTE, context.getHandler());
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // Usually already done by the public listener's preParsing hook, before the body was read.
    const caller = (request.caller = await this.authenticator.authenticate(request));
    await this.rateLimit.charge(request, http.getResponse<FastifyReply>(), route.cost ? route.cost(request) : 1);
    requireScope(caller, route.scope);
    route.sizeLimit?.(request);
    checkRequestInput(request);
    return true;
  }
}
