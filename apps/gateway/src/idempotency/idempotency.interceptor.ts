import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { AppError, ErrorCode, Header } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, Observable, of, throwError } from 'rxjs';
import { OutcomeUnknownError } from '@dc/transport';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { CONFIG, LOGGER } from '../tokens';
import { requestFingerprint } from './canonical-json';
import { IdempotencyStore, RecordKeys, REPLAYED_HEADERS } from './idempotency.store';

const MAX_KEY_LENGTH = 255;
const JSON_TYPE = 'application/json; charset=utf-8';
const POLL_MS = 50;

/**
 * Idempotency-Key (spec: batch rule 12, imports): 1–255 characters, scoped to the API key,
 * bound to a fingerprint of method + path + canonical body, kept 24 h within the API key's quota
 * (its oldest records make room: docs/adr/0009). Same key and request:
 * the stored response with `Idempotent-Replayed: true`, not reprocessed. Same key, different
 * request: 409 idempotency_conflict. A duplicate arriving while the first is in flight waits for
 * it (bounded) and replays; if the first fails, nothing was stored and the duplicate is processed.
 * If Redis is unreachable a request that carries a key is refused with 503 rather than risk a
 * double write (fail closed); requests without a key are unaffected.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly metrics: GatewayMetrics,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const header = request.headers['idempotency-key'];
    if (header === undefined || header === '') return next.handle();
    if (typeof header !== 'string' || header.length > MAX_KEY_LENGTH) {
      throw AppError.validation(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters.`, [
        { message: `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, path: 'Idempotency-Key' },
      ]);
    }
    const keys = this.store.keys(request.caller?.apiKeyId ?? 'anonymous', header);
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const deadline = Date.now() + this.config.idempotency.waitMs;

    for (;;) {
      const claim = await this.unlessStoreDown(() => this.store.claim(keys, fingerprint));
      if (claim.kind === 'claimed') return this.process(next, reply, keys, claim.token, fingerprint);
      if (claim.kind === 'replay') {
        this.metrics.idempotentReplays.inc();
        void reply.status(claim.response.status).headers(claim.response.headers ?? {}).header(Header.IdempotentReplayed, 'true');
        // A compressed record holds the JSON bytes first sent: replayed as they are (byte-identical).
        if (Buffer.isBuffer(claim.response.body)) void reply.type(JSON_TYPE);
        return of(claim.response.body);
      }
      if (claim.kind === 'conflict') {
        throw new AppError(
          ErrorCode.IdempotencyConflict,
          'This Idempotency-Key was already used with a different request (body, path or portfolio). Use a new key for a new request.',
        );
      }
      if (Date.now() >= deadline) {
        throw new AppError(ErrorCode.IdempotencyConflict, 'A request with this Idempotency-Key is still being processed. Retry later with the same key.');
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private process(next: CallHandler, reply: FastifyReply, keys: RecordKeys, token: string, fingerprint: string): Observable<unknown> {
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        // Stored before the response leaves, so a waiting duplicate never misses it.
        if (reply.statusCode >= 200 && reply.statusCode < 300) {
          // The request has run: its answer goes out even when Redis went away meanwhile. A 500 (or a
          // 503) would make the client retry with the same key, wait out the claim's lease and run the
          // request again (fault suite, docs/adr/0028); unstored, a later replay runs it again instead.
          await this.store.complete(keys, token, fingerprint, { status: reply.statusCode, body, headers: replayedHeaders(reply) }).then(
            (dropped) => this.metrics.idempotencyRecordsDropped.inc(dropped),
            (err: unknown) => this.logger.warn({ err: (err as Error)?.message }, 'idempotency record not stored: answered without it'),
          );
        } else {
          await this.store.release(keys, token);
        }
        return body;
      }),
      catchError((err: unknown) => {
        // api-core may still be running the request: keep the claim until its lease ends, so a
        // retry with this key waits (or hears "still being processed") instead of running it twice.
        if (err instanceof OutcomeUnknownError) return throwError(() => err);
        return from(this.store.release(keys, token).catch(() => undefined)).pipe(mergeMap(() => throwError(() => err)));
      }),
    );
  }

  private async unlessStoreDown<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch {
      throw new AppError(ErrorCode.ServiceUnavailable, 'Idempotency records are temporarily unavailable. Retry later.');
    }
  }
}

function replayedHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}
