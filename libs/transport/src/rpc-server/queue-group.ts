import type { NatsConnection, Subscription, SubscriptionOptions } from 'nats';
import { withTimeout } from '../deadline';

/** What the server subscribes: its patterns, and the callback that handles each one's messages. */
export interface Subscribable {
  channels(): Iterable<string>;
  callbackFor(channel: string): NonNullable<SubscriptionOptions['callback']>;
}

/**
 * The replica's membership of its NATS queue group. A replica that cannot do its work (api-core
 * while Postgres is unreachable) leaves, so NATS routes new requests to the others, and rejoins
 * later; closing leaves for good. Leaving drains the subscriptions: messages NATS has already
 * routed here are still delivered and handled.
 */
export class QueueGroup {
  private subscriptions: Subscription[] = [];
  private connection?: NatsConnection;
  /** False while the replica stays out of its queue group. */
  private member = true;
  private closing = false;

  constructor(
    private readonly options: { subjectPrefix: string; queue: string; drainTimeoutMs: number },
    private readonly subscribable: Subscribable,
  ) {}

  /** Whether the replica is (or, before it connects, will be) in its queue group. */
  get isMember(): boolean {
    return this.member;
  }

  /** The connection is up: subscribes every pattern, unless the replica has left meanwhile. */
  connect(client: NatsConnection): void {
    this.connection = client;
    if (this.member) this.subscribeAll(client);
  }

  /** NATS routes no new request here; those already taken are still answered. */
  async leave(): Promise<void> {
    this.member = false;
    const subs = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subs.map((sub) => withTimeout(sub.drain(), this.options.drainTimeoutMs, 'NATS drain').catch(() => undefined)));
  }

  join(): void {
    if (this.closing || this.member) return;
    this.member = true;
    if (this.connection) this.subscribeAll(this.connection);
  }

  /** Leaves and never rejoins (the server is closing). */
  async leaveForGood(): Promise<void> {
    this.closing = true;
    await this.leave();
  }

  private subscribeAll(client: NatsConnection): void {
    for (const channel of this.subscribable.channels()) {
      const subject = `${this.options.subjectPrefix}.${channel}`;
      const sub = client.subscribe(subject, { queue: this.options.queue, callback: this.subscribable.callbackFor(channel) });
      this.subscriptions.push(sub);
    }
  }
}
