import { applyDecorators, HttpCode, UseGuards } from '@nestjs/common';
import type { AnyContract } from '@dc/contracts';
import { RequestInputGuard } from '../http/request-input.guard';
import { RouteMethod, routeMethod } from './route-method';

/**
 * The one decorator of an operator route: method, path and the contract whose `status` is the success
 * status. The operator token is checked by the controller-level OperatorTokenGuard (before the body),
 * then the request's input (RequestInputGuard). No interceptor: GatewayFastifyAdapter writes the CoreReply.
 */
export function OperatorRoute(method: RouteMethod, path: string, rpc: AnyContract): MethodDecorator {
  return applyDecorators(routeMethod(method, path), HttpCode(rpc.status), UseGuards(RequestInputGuard));
}
