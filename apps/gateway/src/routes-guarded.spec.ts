import { GUARDS_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { REQUIRED_SCOPE } from './auth/requires-scope.decorator';
import { OperatorTokenGuard } from './auth/operator-token.guard';
import { OPERATOR_CONTROLLERS, PUBLIC_CONTROLLERS } from './gateway.module';

function routeHandlers(controller: new (...args: never[]) => unknown): [string, object][] {
  const proto = controller.prototype as Record<string, object>;
  return Object.getOwnPropertyNames(proto)
    .filter((name) => name !== 'constructor' && Reflect.getMetadata(PATH_METADATA, proto[name]) !== undefined)
    .map((name) => [`${controller.name}.${name}`, proto[name]]);
}

describe('no route is unguarded', () => {
  it.each(PUBLIC_CONTROLLERS.flatMap(routeHandlers))('%s carries @RequiresScope', (_name, handler) => {
    expect(['read', 'write']).toContain(Reflect.getMetadata(REQUIRED_SCOPE, handler));
  });

  it.each(OPERATOR_CONTROLLERS.map((c) => [c.name, c] as const))('%s is behind the operator token', (_name, controller) => {
    expect(Reflect.getMetadata(GUARDS_METADATA, controller)).toContain(OperatorTokenGuard);
    expect(routeHandlers(controller).length).toBeGreaterThan(0);
  });
});
