import { ErrorCode } from '../errors/error-code';
import { ErrorIssue } from '../errors/app-error';

/** Queue group of api-core: each request is handled by exactly one replica. */
export const API_CORE_QUEUE_GROUP = 'api-core';

/** Broadcast (no queue group) when a key, organization or portfolio changes: gateways drop cached keys. */
export const AUTH_INVALIDATION_SUBJECT = 'auth.invalidate';
export interface AuthInvalidation {
  organizationId: string;
}

/** Who is calling, as established by the gateway; every public RPC carries it. */
export interface AuthContext {
  organizationId: string;
  apiKeyId: string;
  /** The key's portfolio restriction; empty means every active portfolio of the organization. */
  portfolioIds: string[];
}

/** A public RPC request: the caller plus the already-validated input. */
export interface PublicRequest<T = Record<string, never>> {
  auth: AuthContext;
  input: T;
}

/**
 * What api-core answers. `body` is the exact HTTP body of a success, so the gateway serialises it
 * once and never reshapes it.
 */
export type RpcReply<T = unknown> =
  | { ok: true; status: number; body: T }
  | { ok: false; error: { code: ErrorCode; message: string; issues?: ErrorIssue[]; retryAfterSeconds?: number } };

export const REQUEST_ID_HEADER = 'x-request-id';
/** When the gateway stops waiting for the reply (epoch ms): api-core does not start work after it. */
export const DEADLINE_HEADER = 'x-deadline';
