import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { bodyErrorOf, unstorableTextError, unstorableTextPaths } from './request-body';

/**
 * Refuses a body the parser could not accept (request-body.ts) and query values text columns
 * cannot store — whether or not the route reads its body. The last guard of every route
 * (@PublicRoute and @OperatorRoute put it there), so authentication and the other policies are
 * judged first, and before any interceptor: a refused request claims no Idempotency-Key. A guard
 * rather than an interceptor: an interceptor costs Nest two AsyncResource bindings and an rxjs
 * pipeline per request (docs/adr/0034).
 */
@Injectable()
export class RequestInputGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const rejected = bodyErrorOf(request.body);
    if (rejected) throw rejected;
    const unstorable = unstorableTextPaths(request.query);
    if (unstorable.length) throw unstorableTextError(unstorable);
    return true;
  }
}
