import { AppError, ErrorCode, Scope } from '@dc/contracts';
import type { AuthenticatedCaller } from '../http/request-types';

/** A public route's required scope (PublicRouteGuard): 403 forbidden when the key lacks it. */
export function requireScope(caller: AuthenticatedCaller, scope: Scope): void {
  if (!caller.scopes.includes(scope)) {
    throw new AppError(ErrorCode.Forbidden, `This endpoint requires the ${scope} scope, which this API key does not have.`);
  }
}
