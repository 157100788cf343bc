import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA } from '@nestjs/common/constants';
import type { AnyContract, AuthContext, RpcReply } from '@dc/contracts';
import { AppError, ErrorCode, JsonBytes } from '@dc/contracts';
import { isTransientDatabaseError } from '@dc/database';
import { currentDeadline, type Logger } from '@dc/observability';
import type { RpcDispatch } from '@dc/transport';
import type { CoreMetrics } from '../metrics/core-metrics';
import type { HandlerClass } from './handler-coverage';
import { handledContract, StatusReply } from './handles.decorator';

const DATABASE_BUSY = {
  code: ErrorCode.ServiceUnavailable,
  message: 'The database is busy and this request was not carried out. Retry after the time in Retry-After.',
  retryAfterSeconds: 1,
} as const;

/** Nest's enhancer decorators, by the metadata key each one sets on a class or method. */
const ENHANCERS = [
  [GUARDS_METADATA, '@UseGuards'],
  [PIPES_METADATA, '@UsePipes'],
  [INTERCEPTORS_METADATA, '@UseInterceptors'],
  [EXCEPTION_FILTERS_METADATA, '@UseFilters'],
] as const;

/** A handler method bound to its instance, called with the message's `data` as Nest's `@Payload` would split it. */
interface Route {
  contract: AnyContract;
  invoke(data: unknown): unknown;
}

/**
 * Runs each RPC straight on its `@Handles` method and turns every outcome into a typed `RpcReply`
 * (exceptions do not survive the broker hop), writing one log line and one
 * api_core_rpc_duration_seconds observation per request. Nest still builds the handlers and their
 * dependencies; what it would add per message (an rxjs pipeline, interceptor and pipe consumers, two
 * `AsyncResource.bind` per interceptor) is skipped: api-core declares no guards, pipes, interceptors
 * or filters (`register` refuses a handler that does), and this is the one reply rule (docs/adr/0024).
 *
 * A returned body leaves with the contract's success status, a `withStatus` reply with its own
 * (one of the contract's `alsoStatus`); a read's body leaves as JSON bytes, serialised here once. A
 * statement the database cut off (lock or statement timeout, deadlock) leaves as 503 with
 * Retry-After: it was rolled back. Unexpected errors are logged with their stack and leave as a bare
 * `internal_error`: nothing internal reaches a client.
 */
export class RpcDispatcher {
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics: CoreMetrics,
  ) {}

  /**
   * Registers every `@Handles` method of `classes`, on the instance `instanceOf` gives (Nest's).
   * Throws, before any is registered, if a handler or its class carries a guard, pipe, interceptor
   * or exception filter: they run only in Nest's per-message pipeline, which this skips, so they
   * would be ignored without a word.
   */
  register(classes: readonly HandlerClass[], instanceOf: (cls: HandlerClass) => object): this {
    assertNoEnhancers(classes);
    for (const cls of classes) {
      const instance = instanceOf(cls) as Record<string, (...args: unknown[]) => unknown>;
      const proto = cls.prototype as Record<string, object>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const contract = name === 'constructor' ? undefined : handledContract(proto[name]);
        if (!contract) continue;
        const method = instance[name].bind(instance);
        const invoke =
          contract.audience === 'public'
            ? (data: unknown) => {
                const { input, auth } = data as { input: unknown; auth: AuthContext };
                return method(input, auth);
              }
            : (data: unknown) => method(data);
        this.routes.set(contract.pattern, { contract, invoke });
      }
    }
    return this;
  }

  /** The reply to a request on `pattern`, or undefined when no handler serves it. Never rejects. */
  dispatch(pattern: string, data: unknown): Promise<RpcReply> | undefined {
    const route = this.routes.get(pattern);
    return route && this.run(route, data);
  }

  /** `dispatch` as a function of its own (NatsRpcServer.dispatchWith). */
  dispatcher(): RpcDispatch {
    return (pattern, data) => this.dispatch(pattern, data);
  }

  private async run(route: Route, data: unknown): Promise<RpcReply> {
    const { contract } = route;
    const pattern = contract.pattern;
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    let reply: RpcReply;
    try {
      reply = successOf(contract, await route.invoke(data));
      this.logger.info({ pattern, ms: elapsed(), status: reply.status }, 'handled');
    } catch (err) {
      reply = this.failure(pattern, err, elapsed());
    }
    this.metrics.handled(pattern, reply.ok ? 'ok' : reply.error.code, elapsed() / 1000);
    return reply;
  }

  private failure(pattern: string, err: unknown, ms: number): RpcReply {
    if (err instanceof AppError) {
      this.logger.info({ pattern, ms, code: err.code }, 'handled');
      return { ok: false, error: { code: err.code, message: err.message, issues: err.issues, retryAfterSeconds: err.retryAfterSeconds } };
    }
    const deadline = currentDeadline();
    if (deadline !== undefined && Date.now() >= deadline) {
      // Expected once the caller has given up (no new database work starts: docs/adr/0014).
      this.logger.warn({ pattern, ms, err: (err as Error)?.message }, 'abandoned: the caller has given up');
      return { ok: false, error: { code: ErrorCode.ServiceUnavailable, message: 'The caller stopped waiting for this request.' } };
    }
    if (isTransientDatabaseError(err)) {
      // Rolled back by the database's own timeouts (or a deadlock): nothing happened, retry is safe.
      this.logger.warn({ pattern, ms, err: (err as Error).message }, 'database busy: request not carried out');
      return { ok: false, error: { ...DATABASE_BUSY } };
    }
    this.logger.error({ pattern, ms, err }, 'handler failed');
    return {
      ok: false,
      error: { code: ErrorCode.InternalError, message: 'An unexpected error occurred. Retry later; if it persists, contact support with the request id.' },
    };
  }
}

/**
 * Refuses handlers that carry Nest enhancers (on the method or on its class), one line each: the
 * dispatcher calls the method itself, so none of them would run.
 */
function assertNoEnhancers(classes: readonly HandlerClass[]): void {
  const problems: string[] = [];
  for (const cls of classes) {
    const proto = cls.prototype as Record<string, object>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || !handledContract(proto[name])) continue;
      for (const [key, decorator] of ENHANCERS) {
        if (hasEnhancers(proto[name], key)) problems.push(`${cls.name}.${name} carries ${decorator}`);
        if (hasEnhancers(cls, key)) problems.push(`${cls.name}.${name} carries ${decorator} (on its class ${cls.name})`);
      }
    }
  }
  if (problems.length) {
    throw new Error(
      `RpcDispatcher calls handlers directly and does not run Nest guards, pipes, interceptors or exception filters; remove them (or do that work in the handler):\n- ${problems.join('\n- ')}`,
    );
  }
}

function hasEnhancers(target: object, key: string): boolean {
  const found: unknown = Reflect.getMetadata(key, target);
  return Array.isArray(found) && found.length > 0;
}

/** A handler's result as the reply it makes; throws (an internal error) for a status the contract does not allow. */
function successOf(contract: AnyContract, result: unknown): Extract<RpcReply, { ok: true }> {
  if (!(result instanceof StatusReply)) return { ok: true, status: contract.status, body: asSent(contract, result) };
  if (!contract.alsoStatus.includes(result.status)) throw new Error(`${contract.pattern} may not answer ${result.status}`);
  return { ok: true, status: result.status, body: asSent(contract, result.body) };
}

/** A read's body leaves as JSON bytes, serialised here once (the transport sends them as the whole message, docs/adr/0024). */
function asSent(contract: AnyContract, body: unknown): unknown {
  if (!contract.replyAsBytes || body instanceof JsonBytes) return body;
  return JsonBytes.of(body);
}
