import { Req } from '@nestjs/common';

/**
 * The route's caller for `CoreClient.send`: the request being served, typed `PublicCaller` on public
 * routes (its id and, after PublicRouteGuard, its authenticated key) and `OperatorCaller` on
 * operator routes (its id). Nest's own request parameter rather than a custom decorator: Nest runs
 * the global validation pipe over every custom parameter, eight promises per request for a value
 * that needs no validation (docs/adr/0039).
 */
export const Caller = (): ParameterDecorator => Req();
