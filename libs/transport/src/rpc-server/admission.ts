import { ErrorCode, RpcReply } from '@dc/contracts';
import type { Msg } from 'nats';
import type { NatsRpcServerOptions } from './options';
import { answer } from './wire-format';

/**
 * Load shedding (docs/adr/0014): at most `maxConcurrency` requests run at once, and the excess is
 * refused at once, never queued, so a caller learns in microseconds that it may retry here or
 * elsewhere instead of timing out behind work this replica cannot finish. Also counts what is in
 * flight for a graceful close: `idle` resolves once every request taken has been answered.
 *
 * A request is counted in when admitted and counted out once: by its reply's publisher when Nest
 * answers it (`handOver`), otherwise when its handling ends (`release`: an event, a failure, a body
 * that could not be read, a reply sent without Nest).
 */
export class Admission {
  /** Requests taken and not yet answered. */
  private inFlight = 0;
  private onIdle?: () => void;
  /** How each request in flight is counted out, until its publisher takes that over. */
  private readonly finishers = new WeakMap<Msg, () => void>();

  constructor(private readonly options: Pick<NatsRpcServerOptions, 'maxConcurrency' | 'retryAfterSeconds' | 'log' | 'onShed'>) {}

  /** Requests taken and not yet answered. */
  get count(): number {
    return this.inFlight;
  }

  /**
   * Counts the request in and returns how it is counted out (at most once); or, when a request
   * (not an event: those have no one to tell) arrives at max concurrency, sheds it and returns
   * undefined.
   */
  admit(natsMsg: Msg, requestId: string, channel: string): (() => void) | undefined {
    if (natsMsg.reply && this.inFlight >= this.options.maxConcurrency) {
      this.shed(natsMsg, requestId, channel);
      return undefined;
    }
    const finish = this.countIn();
    this.finishers.set(natsMsg, finish);
    return finish;
  }

  /** The publisher of the reply to `received` (the message as NATS delivered it) counts it out from now on. */
  handOver(received: Msg): (() => void) | undefined {
    const finish = this.finishers.get(received);
    this.finishers.delete(received);
    return finish;
  }

  /** The request's handling has ended: counts it out, unless its publisher took that over. */
  release(natsMsg: Msg, finish: () => void): void {
    if (this.finishers.get(natsMsg) !== finish) return;
    this.finishers.delete(natsMsg);
    finish();
  }

  /** Resolves once no request is in flight, or after `timeoutMs` (whichever comes first). */
  async idle(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.onIdle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Counts a request in; the returned function counts it out, once. */
  private countIn(): () => void {
    this.inFlight += 1;
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.inFlight -= 1;
      if (this.inFlight === 0) this.onIdle?.();
    };
  }

  /** Refuses a request unrun: the caller may retry it safely (after Retry-After), here or elsewhere. */
  private shed(natsMsg: Msg, requestId: string, channel: string): void {
    this.options.log.warn({ requestId, channel, inFlight: this.inFlight }, 'shed: at max concurrency');
    this.options.onShed?.(channel);
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
        retryAfterSeconds: this.options.retryAfterSeconds ?? 1,
      },
    };
    answer(natsMsg, id, response);
  }
}
