import { AppError, RpcReply } from '@dc/contracts';
import { NatsBus } from '@dc/transport';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The gateway's only way to api-core. `forward` sends the validated input with the caller, sets
 * the status of a success and returns its body untouched; a failure is thrown as an AppError for
 * the exception filter.
 */
export class CoreClient {
  constructor(private readonly bus: NatsBus) {}

  async call<T>(pattern: string, data: unknown, requestId: string): Promise<{ status: number; body: T }> {
    const reply: RpcReply<T> = await this.bus.request<T>(pattern, data, requestId);
    if (!reply.ok) throw new AppError(reply.error.code, reply.error.message, reply.error.issues, reply.error.retryAfterSeconds);
    return { status: reply.status, body: reply.body };
  }

  /** Largest message the NATS server accepts (its `max_payload`). */
  maxPayload(): number {
    return this.bus.maxPayload();
  }

  /** For public routes: the caller's auth context travels with the input. */
  async forward<T>(request: FastifyRequest, reply: FastifyReply, pattern: string, input: unknown): Promise<T> {
    const caller = request.caller;
    if (!caller) throw new Error('forward() on a route without @RequiresScope');
    const auth = { organizationId: caller.organizationId, apiKeyId: caller.apiKeyId, portfolioIds: caller.portfolioIds };
    const result = await this.call<T>(pattern, { auth, input }, String(request.id));
    void reply.status(result.status);
    return result.body;
  }

  /** For operator routes: no caller, the payload is the operator's input. */
  async forwardOperator<T>(request: FastifyRequest, reply: FastifyReply, pattern: string, payload: unknown): Promise<T> {
    const result = await this.call<T>(pattern, payload, String(request.id));
    void reply.status(result.status);
    return result.body;
  }
}
