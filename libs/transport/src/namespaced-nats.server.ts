import { NatsContext, ServerNats } from '@nestjs/microservices';
import { runWithRequestContext } from '@dc/observability';
import { DEADLINE_HEADER, ErrorCode, JsonBytes, REPLY_STATUS_HEADER, REQUEST_ID_HEADER, RpcReply } from '@dc/contracts';
import { randomUUID } from 'node:crypto';
import { headers, JSONCodec, Msg, MsgHdrs, NatsConnection, Payload, PublishOptions, Subscription } from 'nats';
import { parseDeadline, withTimeout } from './deadline';
import { NatsAccess, natsConnectOptions } from './nats-connection';
import { NatsService } from './nats-permissions';
import { ClaimStore, isEncoded, readBody, UnreadableBodyError } from './payload-codec';
import { REFUSED_HEADER, SignatureVerdict, SigningKeys, verifyRequest } from './request-signature';
import { coalesceWrites } from './write-coalescing';

export interface NamespacedNatsOptions extends NatsAccess {
  /** `subjectPrefix` is prepended to every pattern: lets several deployments (or test runs) share one NATS. */
  queue: string;
  /** Whose NATS user this connection is (nats-permissions.ts). */
  service: NatsService;
  /** A request must be signed with one of these (request-signature.ts, docs/adr/0026). */
  signingKeys: SigningKeys;
  name: string;
  /** On close, how long requests already taken may run on before the connection closes anyway. */
  drainTimeoutMs: number;
  /** Requests run at once; the excess is answered at once with service_unavailable (docs/adr/0014). */
  maxConcurrency: number;
  /** Told to a shed caller as Retry-After. */
  retryAfterSeconds?: number;
  /** Where NatsBus parked the bodies of claim-checked requests (PayloadStore, docs/adr/0017). */
  payloads: ClaimStore;
  log: { warn(obj: object, msg: string): void };
  /** Told of each request shed at max concurrency, with its pattern (api-core counts them). */
  onShed?: (pattern: string) => void;
}

const json = JSONCodec<unknown>();

/**
 * Runs a request's handler and gives its reply, or undefined when no handler serves the pattern
 * (api-core's RpcDispatcher). Must not reject: failures are replies.
 */
export type RpcDispatch = (pattern: string, data: unknown) => Promise<RpcReply> | undefined;

/** NestJS's request packet (what NatsBus sends): `id` names the reply; a packet without one is an event. */
interface RequestPacket {
  id?: string;
  data?: unknown;
}

/**
 * NestJS's NATS server with these additions: subjects carry the deployment's namespace; each
 * message is handled inside a request context holding the caller's request id and deadline (NATS
 * headers set by the gateway), so every log line of the handler carries the id; a request whose
 * caller has already given up is dropped unrun; at most `maxConcurrency` requests run at once,
 * the excess is refused at once (never queued); the replica can leave and rejoin its queue group
 * (while Postgres is unreachable); closing waits for the requests already taken to be
 * answered (Nest's own graceful close waits a fixed period); a request NatsBus sent gzipped or
 * by claim check is decoded before Nest reads it (payload-codec.ts, docs/adr/0017); and, before
 * any of that, a request without a valid signature of its sender is refused `unauthorized`
 * (request-signature.ts, docs/adr/0026). With `dispatchWith`, each request then goes straight to
 * its handler instead of through Nest's per-message pipeline (api-core's RpcDispatcher, docs/adr/0034).
 */
export class NamespacedNatsServer extends ServerNats {
  private ownSubscriptions: Subscription[] = [];
  private connection?: NatsConnection;
  private closing = false;
  /** False while the replica stays out of its queue group (Postgres unreachable). */
  private member = true;
  /** Requests taken and not yet answered. */
  private inFlight = 0;
  private onIdle?: () => void;
  /** How each request in flight is counted out, until its publisher takes that over. */
  private readonly finishers = new WeakMap<Msg, () => void>();
  private dispatch?: RpcDispatch;

  constructor(private readonly namespaced: NamespacedNatsOptions) {
    super({
      ...natsConnectOptions(namespaced, namespaced.service),
      queue: namespaced.queue,
      name: namespaced.name,
      gracefulShutdown: false, // close() below drains instead
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
    });
  }

  override bindEvents(client: NatsConnection): void {
    this.connection = client;
    coalesceWrites(client);
    if (this.member) this.subscribeAll(client);
  }

  /**
   * Requests go straight to `dispatch` instead of through Nest's per-message pipeline (rxjs,
   * interceptor and pipe consumers); Nest's handlers still decide which subjects are subscribed.
   * Set before the server listens.
   */
  dispatchWith(dispatch: RpcDispatch): void {
    this.dispatch = dispatch;
  }

  /** Requests taken and not yet answered (api_core_rpc_in_flight). */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Whether the replica is (or, before it connects, will be) in its queue group. */
  get inQueueGroup(): boolean {
    return this.member;
  }

  /** NATS routes no new request here; those already taken are still answered. */
  async leaveQueueGroup(): Promise<void> {
    this.member = false;
    const subs = this.ownSubscriptions;
    this.ownSubscriptions = [];
    await this.drainAll(subs);
  }

  joinQueueGroup(): void {
    if (this.closing || this.member) return;
    this.member = true;
    if (this.connection) this.subscribeAll(this.connection);
  }

  private subscribeAll(client: NatsConnection): void {
    for (const channel of this.messageHandlers.keys()) {
      const subject = `${this.namespaced.subjectPrefix}.${channel}`;
      const sub = client.subscribe(subject, {
        queue: this.namespaced.queue,
        callback: this.getMessageHandler(channel).bind(this),
      });
      this.ownSubscriptions.push(sub);
    }
  }

  /**
   * Our patterns are plain strings; Nest's version first tries JSON.parse on each one and catches
   * the SyntaxError, which costs a thrown exception (with its stack) per message.
   */
  protected override getRouteFromPattern(pattern: string): string {
    return pattern.startsWith('{') ? super.getRouteFromPattern(pattern) : pattern;
  }

  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const requestId = natsMsg.headers?.get(REQUEST_ID_HEADER) || `rpc_${randomUUID()}`;
    // First, one HMAC over the bytes as received: nothing is decoded, parsed or run for a forger.
    const verdict = verifyRequest(this.namespaced.signingKeys, natsMsg.subject, natsMsg.headers, natsMsg.data, Date.now());
    if (verdict !== 'valid') return this.refuse(natsMsg, requestId, channel, verdict);
    const deadline = parseDeadline(natsMsg.headers?.get(DEADLINE_HEADER));
    if (natsMsg.reply && this.inFlight >= this.namespaced.maxConcurrency) return this.shed(natsMsg, requestId, channel);
    const finish = this.startRequest();
    this.finishers.set(natsMsg, finish);
    try {
      return await runWithRequestContext({ requestId, deadline }, async () => {
        const message = await this.decoded(natsMsg, requestId, channel);
        if (!message) return undefined;
        return this.dispatch ? await this.dispatched(channel, message, this.dispatch) : await super.handleMessage(channel, message);
      });
    } finally {
      // Unless a publisher took it over (getPublisher), the request ends here (an event, a failure,
      // a body that could not be read).
      if (this.finishers.get(natsMsg) === finish) {
        this.finishers.delete(natsMsg);
        finish();
      }
    }
  }

  /**
   * A request run by `dispatch` and answered here, in the wire format Nest's publisher would use
   * (a read's JSON bytes as the whole message). An event (no id) or a pattern `dispatch` does not
   * serve goes to Nest.
   */
  private async dispatched(channel: string, natsMsg: Msg, dispatch: RpcDispatch): Promise<unknown> {
    let packet: RequestPacket;
    try {
      packet = json.decode(natsMsg.data) as RequestPacket;
    } catch {
      // Signed by a trusted sender yet not JSON: a bug of the sender, answered rather than dropped.
      this.answer(natsMsg, undefined, { ok: false, error: { code: ErrorCode.InternalError, message: 'The request could not be completed.' } });
      return undefined;
    }
    const pending = packet.id === undefined ? undefined : dispatch(channel, packet.data);
    if (!pending) return super.handleMessage(channel, natsMsg);
    const reply = await pending;
    if (reply.ok && reply.body instanceof JsonBytes) return this.answerWithBytes(natsMsg, reply.status, reply.body);
    this.answer(natsMsg, packet.id, reply);
    return undefined;
  }

  /**
   * The message as Nest should read it: a gzipped or claim-checked body decoded (async zlib, the
   * claim taken once). A body that cannot be read is answered here, and undefined returned.
   */
  private async decoded(natsMsg: Msg, requestId: string, channel: string): Promise<Msg | undefined> {
    if (!isEncoded(natsMsg.headers)) return natsMsg;
    try {
      return new DecodedMsg(natsMsg, await readBody(natsMsg.headers, natsMsg.data, this.namespaced.payloads));
    } catch (err) {
      const retryable = err instanceof UnreadableBodyError && err.retryable;
      this.namespaced.log.warn({ requestId, channel, err: (err as Error).message }, 'request body could not be read');
      this.answer(natsMsg, undefined, {
        ok: false,
        error: retryable
          ? // The claim expired, was taken already, or Redis is unreachable: the caller may send it again.
            { code: ErrorCode.ServiceUnavailable, message: 'The request could not be read back in time. Retry the request.' }
          : { code: ErrorCode.InternalError, message: 'The request could not be completed.' },
      });
      return undefined;
    }
  }

  /**
   * Nest asks for a publisher once per request and publishes the request's last packet with
   * `isDisposed` (or a single `status: 'error'` packet when no handler exists): the request is in
   * flight until that packet has been handed to NATS.
   */
  override getPublisher(natsMsg: Msg, id: string, ctx: NatsContext): (response: any) => any {
    const publish = super.getPublisher(natsMsg, id, ctx);
    const received = natsMsg instanceof DecodedMsg ? natsMsg.original : natsMsg;
    const finish = this.finishers.get(received);
    this.finishers.delete(received);
    return (packet: { isDisposed?: boolean; status?: string; response?: RpcReply }) => {
      try {
        const reply = packet.response;
        if (reply?.ok && reply.body instanceof JsonBytes) return this.answerWithBytes(natsMsg, reply.status, reply.body);
        return publish(packet);
      } finally {
        if (packet.isDisposed || packet.status === 'error') finish?.();
      }
    };
  }

  /**
   * Stops taking requests (draining the subscriptions, so messages NATS has already routed here are
   * still handled), lets every request taken finish (up to drainTimeoutMs), flushes their replies
   * and closes.
   */
  override async close(): Promise<void> {
    this.closing = true;
    await this.leaveQueueGroup();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.namespaced.drainTimeoutMs);
        this.onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if (this.connection) await withTimeout(this.connection.flush(), this.namespaced.drainTimeoutMs, 'NATS flush').catch(() => undefined);
    await super.close();
  }

  /**
   * A request whose signature is missing or wrong is refused `unauthorized`, unrun and unread (the
   * log line names the request, never its payload). A genuine one past its deadline is dropped the
   * same way: the caller has stopped listening, and running it could only surprise a retry; a
   * replay of it after the deadline gets the same answer.
   */
  private refuse(natsMsg: Msg, requestId: string, channel: string, verdict: Exclude<SignatureVerdict, 'valid'>): void {
    if (verdict === 'expired') {
      const deadline = parseDeadline(natsMsg.headers?.get(DEADLINE_HEADER)) ?? 0;
      this.namespaced.log.warn({ requestId, channel, lateMs: Date.now() - deadline }, 'dropped: the caller had already given up');
    } else {
      this.namespaced.log.warn({ requestId, channel, signature: verdict }, 'refused: request not signed by a trusted sender');
    }
    const message = verdict === 'expired' ? 'The request expired before it could be run.' : 'The request is not signed by a trusted sender.';
    const h = headers();
    h.set(REFUSED_HEADER, verdict);
    this.answer(natsMsg, undefined, { ok: false, error: { code: ErrorCode.Unauthorized, message } }, h);
  }

  /** Refuses a request unrun: the caller may retry it safely (after Retry-After), here or elsewhere. */
  private shed(natsMsg: Msg, requestId: string, channel: string): void {
    this.namespaced.log.warn({ requestId, channel, inFlight: this.inFlight }, 'shed: at max concurrency');
    this.namespaced.onShed?.(channel);
    let id: string | undefined;
    try {
      id = natsMsg.json<{ id?: string }>().id;
    } catch {
      // not Nest's wire format: the caller gets the error without its packet id
    }
    const response: RpcReply = {
      ok: false,
      error: {
        code: ErrorCode.ServiceUnavailable,
        message: 'The service is at capacity and did not start this request. Retry after the time in Retry-After.',
        retryAfterSeconds: this.namespaced.retryAfterSeconds ?? 1,
      },
    };
    this.answer(natsMsg, id, response);
  }

  /**
   * A success whose body is JSON bytes (a read, docs/adr/0024): the bytes are the whole message and a
   * header carries the status, so neither side wraps, parses or re-serialises the body.
   */
  private answerWithBytes(natsMsg: Msg, status: number, body: JsonBytes): boolean {
    if (!natsMsg.reply) return false;
    const h = headers();
    h.set(REPLY_STATUS_HEADER, String(status));
    return natsMsg.respond(body.bytes, { headers: h });
  }

  /** Answers in Nest's wire format, as a handler's last packet would be (nothing to answer for an event). */
  private answer(natsMsg: Msg, id: string | undefined, response: RpcReply, h?: MsgHdrs): void {
    if (natsMsg.reply) natsMsg.respond(json.encode({ id, response, isDisposed: true }), h && { headers: h });
  }

  private async drainAll(subs: Subscription[]): Promise<void> {
    await Promise.all(subs.map((sub) => withTimeout(sub.drain(), this.namespaced.drainTimeoutMs, 'NATS drain').catch(() => undefined)));
  }

  /** Counts a request in; the returned function counts it out, once. */
  private startRequest(): () => void {
    this.inFlight += 1;
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.inFlight -= 1;
      if (this.inFlight === 0) this.onIdle?.();
    };
  }
}

/** A request message whose body is the decoded JSON; everything else is the original's. */
class DecodedMsg implements Msg {
  constructor(
    readonly original: Msg,
    readonly data: Uint8Array,
  ) {}

  get subject(): string {
    return this.original.subject;
  }

  get sid(): number {
    return this.original.sid;
  }

  get reply(): string | undefined {
    return this.original.reply;
  }

  get headers(): MsgHdrs | undefined {
    return this.original.headers;
  }

  respond(payload?: Payload, opts?: PublishOptions): boolean {
    return this.original.respond(payload, opts);
  }

  json<T>(): T {
    return json.decode(this.data) as T;
  }

  string(): string {
    return new TextDecoder().decode(this.data);
  }
}
