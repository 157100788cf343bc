import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { bodyErrorOf, unstorableTextError, unstorableTextPaths } from './request-body';

/**
 * Refuses a body the parser could not accept (request-body.ts) and query values text columns
 * cannot store — whether or not the route reads its body. The last check of every route
 * (PublicRouteGuard's last step; RequestInputGuard on operator routes), so authentication and the
 * other policies are judged first, and before any interceptor: a refused request claims no
 * Idempotency-Key. A guard rather than an interceptor: an interceptor costs Nest two AsyncResource
 * bindings and an rxjs pipeline per request (docs/adr/0034).
 */
export function checkRequestInput(request: FastifyRequest): void {
  const rejected = bodyErrorOf(request.body);
  if (rejected) throw rejected;
  const unstorable = unstorableTextPaths(request.query);
  if (unstorable.length) throw unstorableTextError(unstorable);
}

/** checkRequestInput as the guard of every operator route (@OperatorRoute), after the operator token. */
@Injectable()
export class RequestInputGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    checkRequestInput(context.switchToHttp().getRequest<FastifyRequest>());
    return true;
  }
}
