import type { AuthContext, MeView, Scope } from '@dc/contracts';

/** What PublicRouteGuard attaches to the request for the rest of the pipeline. */
export interface AuthenticatedCaller extends AuthContext {
  scopes: Scope[];
  /** GET /v1/me's body, from the key cache (docs/adr/0024). */
  identity: MeView;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: AuthenticatedCaller;
    /** Authenticator's result, shared by the preParsing hook and PublicRouteGuard. */
    authentication?: Promise<AuthenticatedCaller>;
    /** Bytes of the JSON body as received, for the endpoint-specific size limits. */
    bodyBytes?: number;
  }
}
