import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, ErrorCode, Scope } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticator';
import { rejectedBody } from '../http/request-body';
import type { AuthenticatedCaller } from '../http/request-types';
import type { RateLimitPolicy } from '../rate-limit/rate-limit.policy';
import { PUBLIC_ROUTE, PublicRouteOptions } from './public-route.options';
import { PublicRouteGuard } from './public-route.guard';

const tooLarge = new AppError(ErrorCode.PayloadTooLarge, 'too large');

/** A route handler carrying @PublicRoute's options, as Nest hands it to the guard. */
function routeWith(options: Partial<PublicRouteOptions>): () => void {
  const handler = () => undefined;
  Reflect.defineMetadata(PUBLIC_ROUTE, { method: 'POST', scope: 'write', rpc: { status: 200 }, doc: { summary: 's', returns: 'object' }, ...options }, handler);
  return handler;
}

function caller(scopes: Scope[]): AuthenticatedCaller {
  return { organizationId: 'org_1', apiKeyId: 'key_1', portfolioIds: [], scopes, identity: {} as AuthenticatedCaller['identity'] };
}

/** Runs the guard on a request, with authentication and the rate limit's store replaced by their outcomes. */
async function judge(options: {
  route?: Partial<PublicRouteOptions>;
  authenticated?: AuthenticatedCaller | AppError;
  limited?: AppError;
  body?: unknown;
}): Promise<{ outcome: boolean | AppError; steps: string[]; request: FastifyRequest }> {
  const steps: string[] = [];
  const request = { body: options.body, query: {} } as FastifyRequest;
  const reply = {} as FastifyReply;
  const authenticator = {
    authenticate: async () => {
      steps.push('authenticate');
      const result = options.authenticated ?? caller(['read', 'write']);
      if (result instanceof AppError) throw result;
      return result;
    },
  } as unknown as Authenticator;
  const rateLimit = {
    charge: async (_request: FastifyRequest, _reply: FastifyReply, cost: number) => {
      steps.push(`charge ${cost}`);
      if (options.limited) throw options.limited;
    },
  } as unknown as RateLimitPolicy;
  const handler = routeWith({ ...options.route });
  const context = {
    getHandler: () => handler,
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
  } as unknown as ExecutionContext;
  const outcome = await new PublicRouteGuard(authenticator, rateLimit, new Reflector()).canActivate(context).catch((err: AppError) => err);
  return { outcome, steps, request };
}

describe('PublicRouteGuard: the policies of a public route, in their order', () => {
  it('authenticates, charges the route’s cost and admits the request, with its caller attached', async () => {
    const { outcome, steps, request } = await judge({ route: { cost: (r) => (r.body as unknown[]).length }, body: [1, 2, 3] });
    expect(outcome).toBe(true);
    expect(steps).toEqual(['authenticate', 'charge 3']);
    expect(request.caller?.apiKeyId).toBe('key_1');
  });

  it('charges nothing for a request that is not authenticated', async () => {
    const unauthorized = new AppError(ErrorCode.Unauthorized, 'no key');
    const { outcome, steps } = await judge({ authenticated: unauthorized, route: { scope: 'write' } });
    expect(outcome).toBe(unauthorized);
    expect(steps).toEqual(['authenticate']);
  });

  it('judges the rate limit before the scope, the scope before the size limit, the size limit before the input', async () => {
    const limited = new AppError(ErrorCode.RateLimited, 'limited');
    const oversized = { sizeLimit: () => { throw tooLarge; } };
    const unreadable = rejectedBody(AppError.validation('Content-Type must be application/json.'));

    expect((await judge({ limited, authenticated: caller(['read']), route: oversized, body: unreadable })).outcome).toBe(limited);
    expect((await judge({ authenticated: caller(['read']), route: oversized, body: unreadable })).outcome).toMatchObject({ code: ErrorCode.Forbidden });
    expect((await judge({ route: oversized, body: unreadable })).outcome).toBe(tooLarge);
    expect((await judge({ body: unreadable })).outcome).toMatchObject({ code: ErrorCode.ValidationError, message: 'Content-Type must be application/json.' });
  });

  it('charges one unit when the route declares no cost, and admits a read key on a read route', async () => {
    const { outcome, steps } = await judge({ route: { scope: 'read' }, authenticated: caller(['read']) });
    expect(outcome).toBe(true);
    expect(steps).toEqual(['authenticate', 'charge 1']);
  });
});
