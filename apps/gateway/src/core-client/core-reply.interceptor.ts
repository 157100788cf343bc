import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';
import { CoreReply } from './core-client';

/**
 * Writes api-core's success status to the response and returns the body untouched. Innermost of a
 * route's interceptors (the route decorators put it last), so the Idempotency-Key interceptor
 * records the final status and body.
 */
@Injectable()
export class CoreReplyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof CoreReply)) return result;
        void context.switchToHttp().getResponse<FastifyReply>().status(result.status);
        return result.body;
      }),
    );
  }
}
