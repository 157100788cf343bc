import { AppError, DEADLINE_HEADER, ErrorCode, JsonBytes, REPLY_STATUS_HEADER, REQUEST_ID_HEADER, RpcReply } from '@dc/contracts';
import { connect, createInbox, Events, headers, JSONCodec, Msg, MsgHdrs, NatsConnection, NatsError, Subscription } from 'nats';
import { randomUUID } from 'node:crypto';
import { withTimeout } from './deadline';
import { NatsAccess, natsConnectOptions } from './nats-connection';
import { NatsService } from './nats-permissions';
import { bodyBudget, ClaimStore, goesPlain, writeBody } from './payload-codec';
import { REFUSED_HEADER, signRequest, SigningKeys } from './request-signature';
import { coalesceWrites } from './write-coalescing';

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

/** A request waiting for its reply on the bus's inbox. */
interface Pending {
  resolve: (msg: Msg) => void;
  reject: (err: AppError) => void;
  timer: NodeJS.Timeout;
  /** Where it was published: a publish permission violation names it. */
  subject: string;
}

/**
 * The gateway's (and publishers') side of NATS. Requests speak the NestJS microservice wire format
 * (`{pattern, data, id}` → `{id, response}`), so api-core stays a plain NestJS NATS microservice.
 * Their replies come to one wildcard subscription on the connection's own inbox (`<inbox>.*`), each to
 * `<inbox>.<token>`: nats.js `request()` does the same, but builds a NatsError with a stack trace for
 * every completed request, plus a deferred and a timeout promise. No responder, a closed
 * broker or a timeout becomes 503 service_unavailable.
 * A large request travels gzipped, or by claim check over the server's max_payload
 * (payload-codec.ts, docs/adr/0017); NatsRpcServer decodes it before Nest reads it. Every
 * request is signed (request-signature.ts), and the connection uses the service's NATS user, TLS and
 * reply inbox (docs/adr/0026).
 */
export class NatsBus {
  /** `<inbox>.`: a request's reply subject is this and its token. */
  private readonly replyPrefix: string;
  private replies: Subscription;
  private readonly pending = new Map<string, Pending>();
  private nextToken = 0;

  private constructor(
    private readonly connection: NatsConnection,
    private readonly options: NatsBusOptions,
    inboxPrefix: string | undefined,
  ) {
    this.replyPrefix = `${createInbox(inboxPrefix)}.`;
    this.replies = this.subscribeReplies();
    // Replies can no longer come: what still waits may have run, as after a timeout.
    void this.connection.closed().then(() => this.rejectAll(timedOut));
    this.watchPermissionErrors().catch(() => undefined);
  }

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const connectOptions = natsConnectOptions(options, options.service);
    const connection = await connect({
      ...connectOptions,
      name: options.name,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
      // nats.js captures no stack trace per call (its request() did; without it: +31 % throughput).
      noAsyncTraces: true,
      timeout: FLUSH_TIMEOUT_MS, // per connection attempt; start-up keeps retrying (docs/adr/0014)
    });
    coalesceWrites(connection);
    return new NatsBus(connection, options, connectOptions.inboxPrefix);
  }

  subject(pattern: string): string {
    return `${this.options.subjectPrefix}.${pattern}`;
  }

  async request<T>(pattern: string, data: unknown, requestId: string): Promise<RpcReply<T>> {
    const h = headers();
    const id = randomUUID();
    const request = json.encode({ pattern, data, id });
    let body = request;
    // Most requests go as they are: no asynchronous step (and its promises) before the publish.
    if (!goesPlain(request, bodyBudget(this.maxPayload()))) {
      try {
        body = await writeBody(h, request, this.maxPayload(), this.options.payloads);
      } catch {
        // Only parking a claim-checked body can fail (Redis unreachable): nothing was sent.
        throw new AppError(ErrorCode.ServiceUnavailable, 'Service temporarily unavailable: the request is too large for one message and could not be parked. Retry later.');
      }
    }
    h.set(REQUEST_ID_HEADER, requestId);
    // api-core does not start work that arrives after this: nobody would read its answer.
    h.set(DEADLINE_HEADER, String(Date.now() + this.options.requestTimeoutMs));
    const subject = this.subject(pattern);
    // api-core refuses an unsigned request before reading it (docs/adr/0026).
    signRequest(this.options.signingKeys, subject, h, body);
    const msg = await this.send(subject, body, h);
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

  /** Publishes with a reply subject of our inbox and waits for the reply (or a timeout, or the broker's no-responders). */
  private send(subject: string, body: Uint8Array, h: MsgHdrs): Promise<Msg> {
    if (this.connection.isClosed() || this.connection.isDraining()) return Promise.reject(unreachable());
    // Our inbox subscription was refused (a permission violation): asked again, as nats.js's mux does.
    if (this.replies.isClosed()) this.replies = this.subscribeReplies();
    const token = (this.nextToken++).toString(36);
    try {
      this.connection.publish(subject, body, { reply: this.replyPrefix + token, headers: h });
    } catch {
      return Promise.reject(unreachable());
    }
    // No reply can be read before this returns: the subscription's callback runs on a later socket read.
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(timedOut());
      }, this.options.requestTimeoutMs);
      this.pending.set(token, { resolve, reject, timer, subject });
    });
  }

  private subscribeReplies(): Subscription {
    return this.connection.subscribe(`${this.replyPrefix}*`, { callback: (err, msg) => this.onReply(err, msg) });
  }

  private onReply(err: NatsError | null, msg: Msg): void {
    if (err) {
      // The server refused our inbox subscription: no reply can arrive.
      this.rejectAll(unreachable);
      return;
    }
    const token = msg.subject.substring(this.replyPrefix.length);
    const request = this.pending.get(token);
    if (!request) return; // a reply after its request timed out
    this.pending.delete(token);
    clearTimeout(request.timer);
    // The broker's no-responders status: an empty message with status 503 (what nats.js's isRequestError checks).
    if (msg.data.length === 0 && msg.headers?.code === 503) request.reject(unavailable('no instance of the core service is available'));
    else request.resolve(msg);
  }

  private rejectAll(error: () => AppError): void {
    for (const request of this.pending.values()) {
      clearTimeout(request.timer);
      request.reject(error());
    }
    this.pending.clear();
  }

  /** A request the server refused to route (publish permission violation) fails at once, as with nats.js's request(). */
  private async watchPermissionErrors(): Promise<void> {
    for await (const status of this.connection.status()) {
      const context = status.permissionContext;
      if (status.type !== Events.Error || context?.operation !== 'publish') continue;
      for (const [token, request] of this.pending) {
        if (request.subject !== context.subject) continue;
        this.pending.delete(token);
        clearTimeout(request.timer);
        request.reject(unreachable());
        break;
      }
    }
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

function timedOut(): OutcomeUnknownError {
  return new OutcomeUnknownError(ErrorCode.ServiceUnavailable, 'Service temporarily unavailable: the core service did not answer in time. Retry later.');
}

function unavailable(reason: string): AppError {
  return new AppError(ErrorCode.ServiceUnavailable, `Service temporarily unavailable: ${reason}. Retry later.`);
}

function unreachable(): AppError {
  return unavailable('the message broker is unreachable');
}
