import { applyDecorators, HttpCode, SetMetadata, UseGuards, UseInterceptors } from '@nestjs/common';
import { CoreReplyInterceptor } from '../core-client/core-reply.interceptor';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor';
import { ApiDoc } from './api-doc.decorator';
import { PUBLIC_ROUTE, PublicRouteOptions } from './public-route.options';
import { PublicRouteGuard } from './public-route.guard';
import { routeMethod } from './route-method';

/**
 * The one decorator of a public route. Its policies always run in this order, whatever the order of
 * the options (PublicRouteGuard): authentication, rate limit, scope, size limit, the request's input;
 * then the Idempotency-Key interceptor, the validation pipe and the handler, whose CoreReply sets the
 * status. A unit test checks that every public route carries it.
 */
export function PublicRoute(options: PublicRouteOptions): MethodDecorator {
  // No interceptor unless idempotent: Nest's per-request Observable pipeline is then skipped (the
  // adapter writes the CoreReply, GatewayFastifyAdapter); CoreReplyInterceptor is innermost, so the
  // Idempotency-Key interceptor records the final status and body.
  const interceptors = options.idempotent ? [IdempotencyInterceptor, CoreReplyInterceptor] : [];
  return applyDecorators(
    routeMethod(options.method, options.path ?? ''),
    HttpCode(options.rpc.status),
    SetMetadata(PUBLIC_ROUTE, options),
    UseGuards(PublicRouteGuard),
    UseInterceptors(...interceptors),
    ApiDoc(options.doc),
  );
}
