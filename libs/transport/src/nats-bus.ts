import { AppError, DEADLINE_HEADER, ErrorCode, JsonBytes, REPLY_STATUS_HEADER, REQUEST_ID_HEADER, RpcReply } from '@dc/contracts';
import { connect, ErrorCode as NatsErrorCode, headers, JSONCodec, Msg, NatsConnection, NatsError } from 'nats';
import { randomUUID } from 'node:crypto';
import { withTimeout } from './deadline';
import { NatsAccess, natsConnectOptions } from './nats-connection';
import { NatsService } from './nats-permissions';
import { ClaimStore, writeBody } from './payload-codec';
import { REFUSED_HEADER, signRequest, SigningKeys } from './request-signature';

export interface NatsBusOptions extends NatsAccess {
  requestTimeoutMs: number;
  name: string;
  /** Whose NATS user this connection is (its reply inbox: nats-permissions.ts). */
  service: NatsService;
  /** Every request is signed with the current key (INTERNAL_SIGNING_KEY, docs/adr/0026). */
  signingKeys: SigningKeys;
  /** Where a request too large for one message even gzipped is parked (PayloadStore, docs/adr/0017). */
  payloads: ClaimStore;
}

const json = JSONCodec<unknown>();
/** Bound of a flush or a drain: both wait for the server, which may be unreachable. */
const FLUSH_TIMEOUT_MS = 5_000;

interface NestResponsePacket {
  id: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/**
 * The gateway's (and publishers') side of NATS. Requests use nats.js `request()` and speak the
 * NestJS microservice wire format (`{pattern, data, id}` → `{id, response}`), so api-core stays a
 * plain NestJS NATS microservice. No responder or a timeout becomes 503 service_unavailable.
 * A large request travels gzipped, or by claim check over the server's max_payload
 * (payload-codec.ts, docs/adr/0017); NamespacedNatsServer decodes it before Nest reads it. Every
 * request is signed (request-signature.ts), and the connection uses the service's NATS user, TLS and
 * reply inbox (docs/adr/0026).
 */
export class NatsBus {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly options: NatsBusOptions,
  ) {}

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const connection = await connect({
      ...natsConnectOptions(options, options.service),
      name: options.name,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
      // request() would otherwise capture a stack trace per call (+31 % throughput, PERFORMANCE.md).
      noAsyncTraces: true,
      timeout: FLUSH_TIMEOUT_MS, // per connection attempt; start-up keeps retrying (docs/adr/0014)
    });
    return new NatsBus(connection, options);
  }

  subject(pattern: string): string {
    return `${this.options.subjectPrefix}.${pattern}`;
  }

  async request<T>(pattern: string, data: unknown, requestId: string): Promise<RpcReply<T>> {
    const h = headers();
    const id = randomUUID();
    const request = json.encode({ pattern, data, id });
    let body: Uint8Array;
    try {
      body = await writeBody(h, request, this.maxPayload(), this.options.payloads);
    } catch {
      // Only parking a claim-checked body can fail (Redis unreachable): nothing was sent.
      throw new AppError(ErrorCode.ServiceUnavailable, 'Service temporarily unavailable: the request is too large for one message and could not be parked. Retry later.');
    }
    h.set(REQUEST_ID_HEADER, requestId);
    // api-core does not start work that arrives after this: nobody would read its answer.
    h.set(DEADLINE_HEADER, String(Date.now() + this.options.requestTimeoutMs));
    const subject = this.subject(pattern);
    // api-core refuses an unsigned request before reading it (docs/adr/0026).
    signRequest(this.options.signingKeys, subject, h, body);
    let msg: Msg;
    try {
      msg = await this.connection.request(subject, body, {
        timeout: this.options.requestTimeoutMs,
        headers: h,
      });
    } catch (err) {
      throw unavailable(err);
    }
    // api-core could not verify our signature: our key is not one it holds (docs/adr/0026). Ours to fix, not the client's.
    if (msg.headers?.get(REFUSED_HEADER)) throw new AppError(ErrorCode.InternalError, 'The request could not be completed.');
    // A read's success: the message is the body's JSON, kept as bytes (docs/adr/0024).
    const status = msg.headers?.get(REPLY_STATUS_HEADER);
    if (status) return { ok: true, status: Number(status), body: new JsonBytes(msg.data) as T };
    const packet = json.decode(msg.data) as NestResponsePacket;
    if (packet.err !== undefined || packet.response === undefined) {
      throw new AppError(ErrorCode.InternalError, 'The request could not be completed.');
    }
    return packet.response as RpcReply<T>;
  }

  publish(pattern: string, data: unknown): void {
    this.connection.publish(this.subject(pattern), json.encode(data));
  }

  subscribe(pattern: string, handler: (data: unknown) => void): void {
    this.connection.subscribe(this.subject(pattern), {
      callback: (err, msg) => {
        if (!err) handler(json.decode(msg.data));
      },
    });
  }

  async flush(): Promise<void> {
    await withTimeout(this.connection.flush(), FLUSH_TIMEOUT_MS, 'NATS flush');
  }

  /** The server's max_payload (bytes), as announced on connect. */
  maxPayload(): number {
    return this.connection.info?.max_payload ?? 1024 * 1024;
  }

  isConnected(): boolean {
    return !this.connection.isClosed() && !this.connection.isDraining();
  }

  async drain(): Promise<void> {
    if (this.connection.isClosed()) return;
    await withTimeout(this.connection.drain(), FLUSH_TIMEOUT_MS, 'NATS drain').catch(() => this.connection.close());
  }
}

/**
 * api-core did not answer in time: the request may still be running there, or have completed
 * with its reply lost. Anything that serialises requests (the Idempotency-Key claim) must not
 * treat it as failed.
 */
export class OutcomeUnknownError extends AppError {}

function unavailable(err: unknown): AppError {
  const code = err instanceof NatsError ? err.code : undefined;
  if (code === NatsErrorCode.Timeout) {
    return new OutcomeUnknownError(ErrorCode.ServiceUnavailable, 'Service temporarily unavailable: the core service did not answer in time. Retry later.');
  }
  const reason = code === NatsErrorCode.NoResponders ? 'no instance of the core service is available' : 'the message broker is unreachable';
  return new AppError(ErrorCode.ServiceUnavailable, `Service temporarily unavailable: ${reason}. Retry later.`);
}
