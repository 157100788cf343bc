import type { AnyContract, Scope } from '@dc/contracts';
import type { FastifyRequest } from 'fastify';
import type { RateCostFn } from '../rate-limit/rate-cost';
import type { ApiDocOptions } from './api-doc.decorator';
import type { RouteMethod } from './route-method';

/** Metadata of a public route: its options as declared (read by PublicRouteGuard, the OpenAPI generator and a unit test). */
export const PUBLIC_ROUTE = 'dc:public-route';

/** A route's size check before validation: throws the AppError (413) of a request over its limits. */
export type SizeLimit = (request: FastifyRequest) => void;

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
  sizeLimit?: SizeLimit;
  /** Honours Idempotency-Key (IdempotencyInterceptor). */
  idempotent?: boolean;
  doc: ApiDocOptions;
}
