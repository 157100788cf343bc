import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { AnyContract, AppError, ErrorCode, JsonBytes, RpcReply } from '@dc/contracts';
import { isTransientDatabaseError } from '@dc/database';
import { currentDeadline, type Logger } from '@dc/observability';
import { Observable, catchError, map, of, tap } from 'rxjs';
import { CoreMetrics } from '../metrics/core-metrics';
import { LOGGER } from '../tokens';
import { handledContract, StatusReply } from './handles.decorator';
const DATABASE_BUSY = {
  code: ErrorCode.ServiceUnavailable,
  message: 'The database is busy and this request was not carried out. Retry after the time in Retry-After.',
  retryAfterSeconds: 1,
} as const;

/**
 * Turns every handler outcome into a typed `RpcReply` (exceptions do not survive the broker hop):
 * a returned body leaves with the contract's success status, a `withStatus` reply with its own
 * (one of the contract's `alsoStatus`)
 * and writes one log line and one api_core_rpc_duration_seconds observation per handled request. A statement the database cut off (lock or statement
 * timeout, deadlock) leaves as 503 with Retry-After: it was rolled back. Unexpected errors are
 * logged here with their stack and leave as a bare `internal_error`: nothing internal reaches a client.
 */
@Injectable()
export class RpcReplyInterceptor implements NestInterceptor {
  constructor(
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: CoreMetrics,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<RpcReply> {
    // The handler's own pattern (the subject also carries the deployment's namespace).
    const contract = handledContract(context.getHandler());
    if (!contract) throw new Error(`${context.getClass().name}.${context.getHandler().name} has no @Handles contract`);
    const pattern = contract.pattern;
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    const observe = (reply: RpcReply) => this.metrics.handled(pattern, reply.ok ? 'ok' : reply.error.code, elapsed() / 1000);
    return next.handle().pipe(
      map((result: unknown): RpcReply => {
        if (!(result instanceof StatusReply)) return { ok: true, status: contract.status, body: asSent(contract, result) };
        if (!contract.alsoStatus.includes(result.status)) throw new Error(`${pattern} may not answer ${result.status}`);
        return { ok: true, status: result.status, body: asSent(contract, result.body) };
      }),
      tap((reply: RpcReply) => this.logger.info({ pattern, ms: elapsed(), status: reply.ok ? reply.status : undefined }, 'handled')),
      catchError((err: unknown) => {
        if (err instanceof AppError) {
          this.logger.info({ pattern, ms: elapsed(), code: err.code }, 'handled');
          return of<RpcReply>({
            ok: false,
            error: { code: err.code, message: err.message, issues: err.issues, retryAfterSeconds: err.retryAfterSeconds },
          });
        }
        const deadline = currentDeadline();
        if (deadline !== undefined && Date.now() >= deadline) {
          // Expected once the caller has given up (no new database work starts: docs/adr/0014).
          this.logger.warn({ pattern, ms: elapsed(), err: (err as Error)?.message }, 'abandoned: the caller has given up');
          return of<RpcReply>({ ok: false, error: { code: ErrorCode.ServiceUnavailable, message: 'The caller stopped waiting for this request.' } });
        }
        if (isTransientDatabaseError(err)) {
          // Rolled back by the database's own timeouts (or a deadlock): nothing happened, retry is safe.
          this.logger.warn({ pattern, ms: elapsed(), err: (err as Error).message }, 'database busy: request not carried out');
          return of<RpcReply>({ ok: false, error: { ...DATABASE_BUSY } });
        }
        this.logger.error({ pattern, ms: elapsed(), err }, 'handler failed');
        return of<RpcReply>({
          ok: false,
          error: { code: ErrorCode.InternalError, message: 'An unexpected error occurred. Retry later; if it persists, contact support with the request id.' },
        });
      }),
      tap(observe),
    );
  }
}

/** A read's body leaves as JSON bytes, serialised here once (the transport sends them as the whole message, docs/adr/0024). */
function asSent(contract: AnyContract, body: unknown): unknown {
  if (!contract.replyAsBytes || body instanceof JsonBytes) return body;
  return JsonBytes.of(body);
}
