import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';
import { CoreReply } from './core-client';
import { writeCoreReply } from './core-reply-writer';

/**
 * Writes a CoreReply to the response inside the interceptor chain, for the routes whose
 * Idempotency-Key interceptor records the final status and body: the innermost of their
 * interceptors. Every other route has no interceptor at all (Nest then skips its Observable
 * pipeline, docs/adr/0034) and its CoreReply is written by GatewayFastifyAdapter.
 */
@Injectable()
export class CoreReplyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(map((result: unknown) => (result instanceof CoreReply ? writeCoreReply(reply, result) : result)));
  }
}
