import { applyDecorators, CanActivate, HttpCode, SetMetadata, Type, UseGuards, UseInterceptors } from '@nestjs/common';
import type { AnyContract, Scope } from '@dc/contracts';
import { AuthGuard } from '../auth/auth.guard';
import { REQUIRED_SCOPE, ScopeGuard } from '../auth/scope.guard';
import { CoreReplyInterceptor } from '../core-client/core-reply.interceptor';
import { RequestInputGuard } from '../http/request-input.guard';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor';
import { RATE_COST, RateCostFn } from '../rate-limit/rate-cost';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';
import { ApiDoc, ApiDocOptions } from './api-doc.decorator';
import { RouteMethod, routeMethod } from './route-method';

/** Metadata of a public route: its options as declared (read by the OpenAPI generator and a unit test). */
export const PUBLIC_ROUTE = 'dc:public-route';


export interface PublicRouteOptions {
  method: RouteMethod;
  /** Below the controller's path; '' for the controller's own. */
  path?: string;
  scope: Scope;
  /** The contract the route forwards to: its `status` is the route's success status (a route the gateway answers itself, GET /me, or a test-only route gives just a status). */
  rpc: AnyContract | { status: number };
  /** Rate-limit units of a request (default 1), computed from the parsed request. */
  cost?: RateCostFn;
  /** Size limits checked before validation (after auth, rate limit and scope). */
  sizeLimit?: Type<CanActivate>;
  /** Honours Idempotency-Key (IdempotencyInterceptor). */
  idempotent?: boolean;
  doc: ApiDocOptions;
}

/**
 * The one decorator of a public route. Its policies always run in this order, whatever the order of
 * the options: authentication, rate limit (charged even if the request is refused later, so every
 * response carries the consumption headers; with the route's cost), scope, size limit, the request's
 * input (RequestInputGuard); then the Idempotency-Key interceptor, the validation pipe and the handler, whose
 * CoreReply sets the status. A unit test checks that every public route carries it.
 */
export function PublicRoute(options: PublicRouteOptions): MethodDecorator {
  const guards: Type<CanActivate>[] = [AuthGuard, RateLimitGuard, ScopeGuard, ...(options.sizeLimit ? [options.sizeLimit] : []), RequestInputGuard];
  // No interceptor unless idempotent: Nest's per-request Observable pipeline is then skipped (the
  // adapter writes the CoreReply, GatewayFastifyAdapter); CoreReplyInterceptor is innermost, so the
  // Idempotency-Key interceptor records the final status and body.
  const interceptors = options.idempotent ? [IdempotencyInterceptor, CoreReplyInterceptor] : [];
  return applyDecorators(
    routeMethod(options.method, options.path ?? ''),
    HttpCode(options.rpc.status),
    SetMetadata(PUBLIC_ROUTE, options),
    SetMetadata(REQUIRED_SCOPE, options.scope),
    ...(options.cost ? [SetMetadata(RATE_COST, options.cost)] : []),
    UseGuards(...guards),
    UseInterceptors(...interceptors),
    ApiDoc(options.doc),
  );
}
