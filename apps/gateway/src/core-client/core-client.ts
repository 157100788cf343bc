import { AppError, AuthContext, OperatorContract, PublicContract, RpcReply } from '@dc/contracts';
import { NatsBus } from '@dc/transport';
import type { Histogram } from 'prom-client';
import type { AuthenticatedCaller } from '../http/request-types';

/**
 * Who a request to api-core is for: the HTTP request being served, as @Caller() gives it — every
 * route's request has its id, a public route's (after PublicRouteGuard) its authenticated caller.
 */
export interface OperatorCaller {
  readonly id: string;
}
export interface PublicCaller extends OperatorCaller {
  readonly caller: AuthenticatedCaller;
}

/**
 * A success from api-core: the status it chose (the contract's, or one of its `alsoStatus`) and the
 * body; `headers` for a body the gateway makes of it (a file streamed from api-core's pages).
 */
export class CoreReply<O> {
  constructor(
    readonly status: number,
    readonly body: O,
    readonly headers?: Readonly<Record<string, string>>,
  ) {}
}

/**
 * The gateway's only way to api-core. `send` takes an RPC contract from libs/contracts, so the input
 * and the reply are typed by it; a failure is thrown as an AppError for the exception filter, a
 * success comes back as a CoreReply, written to the response by GatewayFastifyAdapter (or, on
 * idempotent routes, by CoreReplyInterceptor).
 */
export class CoreClient {
  /** `roundTrip`: gateway_core_request_duration_seconds {pattern, outcome} (GatewayMetrics). */
  constructor(
    private readonly bus: NatsBus,
    private readonly roundTrip?: Histogram<'pattern' | 'outcome'>,
  ) {}

  send<I, O>(contract: PublicContract<I, O>, caller: PublicCaller, input: NoInfer<I>): Promise<CoreReply<O>>;
  send<I, O>(contract: OperatorContract<I, O>, caller: OperatorCaller, input: NoInfer<I>): Promise<CoreReply<O>>;
  async send<I, O>(contract: PublicContract<I, O> | OperatorContract<I, O>, caller: OperatorCaller | PublicCaller, input: I): Promise<CoreReply<O>> {
    const data = contract.audience === 'public' ? { auth: publicAuth(caller), input } : input;
    const started = performance.now();
    let reply: RpcReply<O>;
    try {
      reply = await this.bus.request<O>(contract.pattern, data, caller.id);
    } catch (err) {
      this.observe(contract.pattern, err instanceof AppError ? err.code : 'internal_error', started);
      throw err;
    }
    this.observe(contract.pattern, reply.ok ? 'ok' : reply.error.code, started);
    if (!reply.ok) throw new AppError(reply.error.code, reply.error.message, reply.error.issues, reply.error.retryAfterSeconds);
    return new CoreReply(reply.status, reply.body);
  }

  private observe(pattern: string, outcome: string, started: number): void {
    this.roundTrip?.observe({ pattern, outcome }, (performance.now() - started) / 1000);
  }
}

/** Only what api-core needs of the caller travels (not the key's scopes). */
function publicAuth(caller: OperatorCaller | PublicCaller): AuthContext {
  const auth = (caller as PublicCaller).caller;
  if (!auth) throw new Error('a public contract was sent without an authenticated caller (route without @PublicRoute)');
  return { organizationId: auth.organizationId, apiKeyId: auth.apiKeyId, portfolioIds: auth.portfolioIds };
}
