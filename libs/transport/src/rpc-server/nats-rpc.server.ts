import { NatsContext, ServerNats } from '@nestjs/microservices';
import { runWithRequestContext } from '@dc/observability';
import { JsonBytes, REQUEST_ID_HEADER, RpcReply } from '@dc/contracts';
import { randomUUID } from 'node:crypto';
import type { Msg, NatsConnection } from 'nats';
import { withTimeout } from '../deadline';
import { natsConnectOptions } from '../nats-connection';
import { coalesceWrites } from '../write-coalescing';
import { Admission } from './admission';
import { dispatchDirectly, RpcDispatch } from './direct-dispatch';
import type { NatsRpcServerOptions } from './options';
import { QueueGroup } from './queue-group';
import { readableMessage } from './request-body';
import { deadlineOf, verifySender } from './sender-verification';
import { answerWithBytes, received } from './wire-format';

/**
 * The server end of NatsBus's requests: api-core's Nest transport strategy. Named for that role,
 * not for any one of the things it adds (the subject namespace is but one of them); and not
 * "guarded", since Nest's guards are among what `dispatchWith` skips.
 *
 * Each message, in this order: the sender's signature and the caller's deadline are verified
 * (sender-verification.ts), or the request is refused unread; it is admitted, or shed at max
 * concurrency (admission.ts); inside a request context holding the caller's request id and
 * deadline (so every log line of its handler carries the id), its body is decoded if NatsBus sent
 * it gzipped or by claim check (request-body.ts); then it runs on its handler, straight through
 * `dispatchWith` (direct-dispatch.ts) or through Nest. Replies this server sends itself use Nest's
 * wire format (wire-format.ts). Subjects carry the deployment's namespace, and the replica can
 * leave and rejoin its queue group (queue-group.ts); closing waits for the requests already taken
 * to be answered.
 *
 * Written against @nestjs/microservices 11.2.6 (the exact version package.json pins): the methods
 * overridden below, and `messageHandlers`/`getMessageHandler`, are that version's internals rather
 * than its public API, so re-read them in ServerNats and Server when upgrading.
 */
export class NatsRpcServer extends ServerNats {
  private connection?: NatsConnection;
  private readonly admission: Admission;
  private readonly queueGroup: QueueGroup;
  private dispatch?: RpcDispatch;

  constructor(private readonly settings: NatsRpcServerOptions) {
    super({
      ...natsConnectOptions(settings, settings.service),
      queue: settings.queue,
      name: settings.name,
      gracefulShutdown: false, // close() below drains instead
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
    });
    this.admission = new Admission(settings);
    // Nest 11.2.6 keeps the patterns of the registered handlers in `messageHandlers` and builds each
    // subscription's callback with `getMessageHandler`; reading them (rather than Nest's own
    // subscriptions) is what lets the replica leave and rejoin its queue group under its namespace.
    this.queueGroup = new QueueGroup(settings, {
      channels: () => this.messageHandlers.keys(),
      callbackFor: (channel) => this.getMessageHandler(channel).bind(this),
    });
  }

  /**
   * Nest 11.2.6's bindEvents subscribes each pattern bare, once, for good: this one subscribes it
   * under the namespace, through the queue group (which can leave and rejoin), once the connection
   * has been handed to coalesceWrites (which decides whether its writes are coalesced).
   */
  override bindEvents(client: NatsConnection): void {
    this.connection = client;
    coalesceWrites(client);
    this.queueGroup.connect(client);
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
    return this.admission.count;
  }

  /** Whether the replica is (or, before it connects, will be) in its queue group. */
  get inQueueGroup(): boolean {
    return this.queueGroup.isMember;
  }

  /** NATS routes no new request here; those already taken are still answered. */
  async leaveQueueGroup(): Promise<void> {
    await this.queueGroup.leave();
  }

  joinQueueGroup(): void {
    this.queueGroup.join();
  }

  /**
   * Nest 11.2.6 first tries JSON.parse on each pattern and catches the SyntaxError, a thrown
   * exception (with its stack) per message; ours are plain strings, so only a JSON one is parsed.
   */
  protected override getRouteFromPattern(pattern: string): string {
    return pattern.startsWith('{') ? super.getRouteFromPattern(pattern) : pattern;
  }

  /**
   * Nest 11.2.6's handleMessage deserialises and runs every message it is given: this one verifies
   * the sender, admits or sheds, decodes the body and sets the request context first, and hands
   * the request to `dispatch` when one is set.
   */
  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const requestId = natsMsg.headers?.get(REQUEST_ID_HEADER) || `rpc_${randomUUID()}`;
    if (!verifySender(this.settings.signingKeys, this.settings.log, natsMsg, requestId, channel)) return undefined;
    const deadline = deadlineOf(natsMsg);
    const finish = this.admission.admit(natsMsg, requestId, channel);
    if (!finish) return undefined;
    try {
      return await runWithRequestContext({ requestId, deadline }, async () => {
        const message = await readableMessage(this.settings.payloads, this.settings.log, natsMsg, requestId, channel);
        if (!message) return undefined;
        const toNest = () => super.handleMessage(channel, message);
        return this.dispatch ? await dispatchDirectly(message, channel, this.dispatch, toNest) : await toNest();
      });
    } finally {
      this.admission.release(natsMsg, finish);
    }
  }

  /**
   * Nest 11.2.6 asks for a publisher once per request and publishes the request's last packet with
   * `isDisposed` (or a single `status: 'error'` packet when no handler exists): the request stays in
   * flight until that packet has been handed to NATS, and a JSON-bytes success leaves as the bytes.
   */
  override getPublisher(natsMsg: Msg, id: string, ctx: NatsContext): (response: any) => any {
    const publish = super.getPublisher(natsMsg, id, ctx);
    const finish = this.admission.handOver(received(natsMsg));
    return (packet: { isDisposed?: boolean; status?: string; response?: RpcReply }) => {
      try {
        const reply = packet.response;
        if (reply?.ok && reply.body instanceof JsonBytes) return answerWithBytes(natsMsg, reply.status, reply.body);
        return publish(packet);
      } finally {
        if (packet.isDisposed || packet.status === 'error') finish?.();
      }
    };
  }

  /**
   * Nest 11.2.6's graceful close waits a fixed grace period: this one leaves the queue group for
   * good (draining, so messages NATS has already routed here are still handled), waits for every
   * request taken to be answered (up to drainTimeoutMs), flushes their replies and closes.
   */
  override async close(): Promise<void> {
    await this.queueGroup.leaveForGood();
    await this.admission.idle(this.settings.drainTimeoutMs);
    if (this.connection) await withTimeout(this.connection.flush(), this.settings.drainTimeoutMs, 'NATS flush').catch(() => undefined);
    await super.close();
  }
}
