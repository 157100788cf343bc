import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { OperatorCaller, PublicCaller } from './core-client';

/**
 * The route's caller for `CoreClient.send`: the request id and, on public routes (after the guards
 * of @PublicRoute), the authenticated key. Type it `PublicCaller` on public routes and
 * `OperatorCaller` on operator routes.
 */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): OperatorCaller | PublicCaller => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const requestId = String(request.id);
  return request.caller ? { requestId, auth: request.caller } : { requestId };
});
