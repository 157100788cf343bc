import { NatsContext, ServerNats } from '@nestjs/microservices';
import { runWithRequestContext } from '@dc/observability';
import { REQUEST_ID_HEADER } from '@dc/contracts';
import { randomUUID } from 'node:crypto';
import type { Msg, NatsConnection, Subscription } from 'nats';

export interface NamespacedNatsOptions {
  url: string;
  /** Prepended to every pattern: lets several deployments (or test runs) share one NATS. */
  subjectPrefix: string;
  queue: string;
  name: string;
  /** On close, how long requests already taken may run on before the connection closes anyway. */
  drainTimeoutMs: number;
}

/**
 * NestJS's NATS server with three additions: subjects carry the deployment's namespace; each
 * message is handled inside a request context holding the caller's request id (from the NATS
 * header set by the gateway), so every log line of the handler carries it; and closing waits for
 * the requests already taken to be answered (Nest's own graceful close waits a fixed period).
 */
export class NamespacedNatsServer extends ServerNats {
  private readonly ownSubscriptions: Subscription[] = [];
  private connection?: NatsConnection;
  /** Requests taken and not yet answered. */
  private inFlight = 0;
  private onIdle?: () => void;
  /** How each request in flight is counted out, until its publisher takes that over. */
  private readonly finishers = new WeakMap<Msg, () => void>();

  constructor(private readonly namespaced: NamespacedNatsOptions) {
    super({
      servers: [namespaced.url],
      queue: namespaced.queue,
      name: namespaced.name,
      gracefulShutdown: false, // close() below drains instead
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
    });
  }

  override bindEvents(client: NatsConnection): void {
    this.connection = client;
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
    const finish = this.startRequest();
    this.finishers.set(natsMsg, finish);
    const requestId = natsMsg.headers?.get(REQUEST_ID_HEADER) || `rpc_${randomUUID()}`;
    try {
      return await runWithRequestContext({ requestId }, () => super.handleMessage(channel, natsMsg));
    } finally {
      // Unless a publisher took it over (getPublisher), the request ends here (an event, a failure).
      if (this.finishers.get(natsMsg) === finish) {
        this.finishers.delete(natsMsg);
        finish();
      }
    }
  }

  /**
   * Nest asks for a publisher once per request and publishes the request's last packet with
   * `isDisposed` (or a single `status: 'error'` packet when no handler exists): the request is in
   * flight until that packet has been handed to NATS.
   */
  override getPublisher(natsMsg: Msg, id: string, ctx: NatsContext): (response: any) => any {
    const publish = super.getPublisher(natsMsg, id, ctx);
    const finish = this.finishers.get(natsMsg);
    this.finishers.delete(natsMsg);
    return (packet: { isDisposed?: boolean; status?: string }) => {
      try {
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
    await Promise.all(this.ownSubscriptions.map((sub) => sub.drain().catch(() => undefined)));
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.namespaced.drainTimeoutMs);
        this.onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await this.connection?.flush().catch(() => undefined);
    await super.close();
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
