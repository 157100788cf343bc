import { AppError, AuthRpc, ErrorCode, hashApiKey, parseApiKey, VerifiedKey } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CoreClient } from '../core-client/core-client';
import type { AuthenticatedCaller } from '../http/request-types';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { KeyCache } from './key-cache';

const UNAUTHORIZED_MESSAGES = {
  missing: 'Missing API key: send the header Authorization: Bearer <API_KEY>.',
  malformed: 'Malformed API key: expected svc_live_… or svc_test_… followed by 43 characters.',
  invalid: 'The API key is not valid: it does not exist, was revoked or has expired.',
};

/**
 * Bearer API key → caller. The format and checksum are checked before any lookup; the lookup
 * goes through the 60-second cache, then `auth.verify-key` on api-core. Each failure counts
 * against the client's address (FailedAuthLimiter): past the limit the answer is 429, and an
 * address over it cannot make the gateway look up further keys.
 *
 * Runs once per request, before the body is read (the public listener's preParsing hook) and is
 * awaited again by PublicRouteGuard: a request without a valid key costs no body parsing.
 */
export class Authenticator {
  constructor(
    private readonly core: CoreClient,
    private readonly cache: KeyCache,
    private readonly failures: FailedAuthLimiter,
    private readonly logger: Logger,
  ) {}

  authenticate(request: FastifyRequest): Promise<AuthenticatedCaller> {
    request.authentication ??= this.run(request);
    return request.authentication;
  }

  private async run(request: FastifyRequest): Promise<AuthenticatedCaller> {
    const key = bearerToken(request.headers.authorization);
    if (!key) return this.refuse(request, 'missing');
    if (!parseApiKey(key)) return this.refuse(request, 'malformed');

    const keyHash = hashApiKey(key);
    let verified = this.cache.get(keyHash);
    if (verified === undefined) {
      await this.assertNotOverLimit(request);
      verified = await this.lookUp(keyHash, request);
    }
    if (!verified || (verified.expiresAt && Date.parse(verified.expiresAt) <= Date.now())) {
      return this.refuse(request, 'invalid');
    }
    if (!verified.organizationActive) {
      throw new AppError(ErrorCode.OrganizationInactive, 'The organization of this API key is not active.');
    }
    return {
      apiKeyId: verified.apiKeyId,
      organizationId: verified.organizationId,
      portfolioIds: verified.portfolioIds,
      scopes: verified.scopes,
      identity: verified.identity,
    };
  }

  private async lookUp(keyHash: string, request: FastifyRequest): Promise<VerifiedKey | null> {
    const since = this.cache.generation;
    try {
      const { body } = await this.core.send(AuthRpc.verifyKey, request, { keyHash });
      this.cache.set(keyHash, body, since);
      return body;
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCode.Unauthorized) {
        this.cache.set(keyHash, null, since);
        return null;
      }
      throw err;
    }
  }

  private async assertNotOverLimit(request: FastifyRequest): Promise<void> {
    if (!this.failures.enabled) return;
    const count = await this.failures.read(request.ip).catch((err: Error) => this.storeUnreachable(request, err));
    if (count && count.failures >= this.failures.limit) throw this.tooMany(count.resetIn);
  }

  private async refuse(request: FastifyRequest, reason: keyof typeof UNAUTHORIZED_MESSAGES): Promise<never> {
    if (this.failures.enabled) {
      const count = await this.failures.record(request.ip).catch((err: Error) => this.storeUnreachable(request, err));
      if (count && count.failures > this.failures.limit) throw this.tooMany(count.resetIn);
    }
    throw new AppError(ErrorCode.Unauthorized, UNAUTHORIZED_MESSAGES[reason]);
  }

  /** Without Redis the limit is not enforced (fail open, as the rate limit): keys are still verified. */
  private storeUnreachable(request: FastifyRequest, err: Error): undefined {
    this.logger.warn({ requestId: request.id, err: err.message }, 'failed-authentication store unreachable: limit not applied');
    return undefined;
  }

  private tooMany(resetIn: number): AppError {
    return new AppError(
      ErrorCode.RateLimited,
      `Too many failed authentications from this address (limit ${this.failures.limit} per minute). Retry after ${resetIn} s with a valid API key.`,
      undefined,
      resetIn,
    );
  }
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/**
 * Runs `check` (authentication) for routes under `prefix` before their body is read, so a request
 * without valid credentials is answered without its body being parsed (or even received: see
 * lingering-close.ts). The route's guard repeats or reuses the check.
 */
export function checkBeforeBody(app: FastifyInstance, prefix: string, check: (request: FastifyRequest) => unknown): void {
  // The callback form: an async hook costs two more promises per request, on every route (docs/adr/0039).
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (!request.routeOptions.url?.startsWith(prefix)) return done(null, payload);
    let checked: unknown;
    try {
      checked = check(request);
    } catch (err) {
      return done(err as Error);
    }
    if (checked instanceof Promise) checked.then(() => done(null, payload), (err: Error) => done(err));
    else done(null, payload);
  });
}
