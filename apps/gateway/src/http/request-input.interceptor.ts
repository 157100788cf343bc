import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { bodyErrorOf, unstorableTextError, unstorableTextPaths } from './request-body';

/**
 * Refuses, on every route and after the guards (so authentication is judged first), a body the
 * parser could not accept (request-body.ts) and query values text columns cannot store — whether or
 * not the route reads its body. Global, so it runs before route interceptors (Idempotency-Key):
 * a refused request claims nothing.
 */
@Injectable()
export class RequestInputInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const rejected = bodyErrorOf(request.body);
    if (rejected) throw rejected;
    const unstorable = unstorableTextPaths(request.query);
    if (unstorable.length) throw unstorableTextError(unstorable);
    return next.handle();
  }
}
