import { GUARDS_METADATA, HTTP_CODE_METADATA, INTERCEPTORS_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { OperatorTokenGuard } from './auth/operator-token.guard';
import { CoreReplyInterceptor } from './core-client/core-reply.interceptor';
import { RequestInputGuard } from './http/request-input.guard';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { OPERATOR_CONTROLLERS } from './operator';
import { PUBLIC_CONTROLLERS } from './public';
import { PUBLIC_ROUTE, PublicRouteOptions } from './routes/public-route.options';
import { PublicRouteGuard } from './routes/public-route.guard';

function routeHandlers(controller: new (...args: never[]) => unknown): [string, object][] {
  const proto = controller.prototype as Record<string, object>;
  return Object.getOwnPropertyNames(proto)
    .filter((name) => name !== 'constructor' && Reflect.getMetadata(PATH_METADATA, proto[name]) !== undefined)
    .map((name) => [`${controller.name}.${name}`, proto[name]]);
}

describe('no route is unguarded', () => {
  it.each(PUBLIC_CONTROLLERS.flatMap(routeHandlers))('%s carries @PublicRoute', (_name, handler) => {
    const route = Reflect.getMetadata(PUBLIC_ROUTE, handler) as PublicRouteOptions | undefined;
    expect(route).toBeDefined();
    expect(['read', 'write']).toContain(route!.scope);
    // The policies' one guard, nothing else: no guard added beside @PublicRoute (their order: public-route.guard.spec.ts).
    expect(Reflect.getMetadata(GUARDS_METADATA, handler)).toEqual([PublicRouteGuard]);
    // No interceptor on a route without Idempotency-Key: Nest then skips its Observable pipeline.
    expect(Reflect.getMetadata(INTERCEPTORS_METADATA, handler)).toEqual(route!.idempotent ? [IdempotencyInterceptor, CoreReplyInterceptor] : []);
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, handler)).toBe(route!.rpc.status);
  });

  it.each(OPERATOR_CONTROLLERS.map((c) => [c.name, c] as const))('%s is behind the operator token', (_name, controller) => {
    expect(Reflect.getMetadata(GUARDS_METADATA, controller)).toContain(OperatorTokenGuard);
    expect(routeHandlers(controller).length).toBeGreaterThan(0);
    // The request's input is judged after the token, on every route.
    for (const [, handler] of routeHandlers(controller)) {
      expect(Reflect.getMetadata(GUARDS_METADATA, handler)).toEqual([RequestInputGuard]);
      expect(Reflect.getMetadata(INTERCEPTORS_METADATA, handler)).toBeUndefined();
    }
  });

  it('operator controllers are named apart from public ones', () => {
    const publicNames = new Set(PUBLIC_CONTROLLERS.map((c) => c.name));
    expect(OPERATOR_CONTROLLERS.filter((c) => publicNames.has(c.name))).toEqual([]);
  });
});
