import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { JsonBytes } from '@dc/contracts';
import type { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';
import { CoreReply } from './core-client';

/**
 * Writes api-core's success status to the response and returns the body untouched: a read's JSON
 * bytes go to the socket as they came from api-core, never parsed (docs/adr/0024). Innermost of a
 * route's interceptors (the route decorators put it last), so the Idempotency-Key interceptor
 * records the final status and body.
 */
const JSON_TYPE = 'application/json; charset=utf-8';

@Injectable()
export class CoreReplyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof CoreReply)) return result;
        const reply = context.switchToHttp().getResponse<FastifyReply>().status(result.status);
        if (!(result.body instanceof JsonBytes)) return result.body;
        void reply.type(JSON_TYPE);
        const { bytes } = result.body;
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }),
    );
  }
}
