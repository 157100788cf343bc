interface ReceiverState {
  /** When each request in flight to this receiver was sent, oldest first. */
  startedAt: number[];
  /** Slots taken by jobs that have not sent their request yet (they are claiming the attempt). */
  reserved: number;
  /** Moving average of how long a request to this receiver takes; null until its first answer. */
  averageMs: number | null;
  /** When the jobs this process postponed for this receiver come due again. */
  postponedUntil: number[];
  lastUsed: number;
}

export interface FairnessOptions {
  /** Requests in flight at once to a slow receiver, per process. */
  slowCap: number;
  /** …and to one that answers promptly (bounds what a receiver that starts hanging takes meanwhile). */
  fastCap: number;
  /** A receiver is slow while its average request takes this long, or one of its requests has been in flight this long. */
  slowAfterMs: number;
  /** Shortest and longest postponement of a job over its receiver's cap. */
  minPostponeMs: number;
  maxPostponeMs: number;
  random?: () => number;
  now?: () => number;
}

/** How much one request's duration moves the average (exponential moving average). */
const SMOOTHING = 0.2;
/** A receiver not seen for this long is forgotten (its state is rebuilt on its next job). */
const FORGET_AFTER_MS = 10 * 60_000;

/**
 * Per-receiver fairness inside one dispatcher process (a receiver that answers slowly or
 * never must not hold up deliveries to others). The worker runs WEBHOOK_CONCURRENCY jobs at once.
 * A receiver that is slow — its requests take `slowAfterMs` or more on average, or one of them has
 * been waiting that long, or it has not answered yet at all — may have at most `slowCap` requests in
 * flight (a tenth of the concurrency); one that answers promptly may have up to `fastCap` (half),
 * so a few busy receivers can use the whole worker while a receiver that hangs holds a tenth of it.
 *
 * A job whose receiver is at its cap (`hasRoom`) is postponed without consuming an attempt, for
 * about as long as it would wait for a free slot: the jobs already postponed for that receiver times
 * its request duration (the average, or the age of its oldest request if longer) over the cap
 * (bounded), so a backlog for a receiver that times out is
 * not re-fetched in a tight loop, while a fast one that merely hit the cap is tried again within a
 * fraction of a second.
 *
 * A job takes its slot (`reserve`) before its first await, so jobs that start in the same instant
 * cannot all see the same free slot; the slot counts toward the cap from then on, but only the
 * request itself (`Slot.begin` … `Slot.end`) feeds the receiver's average duration.
 */
export class ReceiverFairness {
  private readonly receivers = new Map<string, ReceiverState>();
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(private readonly options: FairnessOptions) {
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => performance.now());
  }

  /** The default caps: a tenth of the process's concurrency (at least 4) for a slow receiver, half for a prompt one. */
  static capsFor(concurrency: number): { slowCap: number; fastCap: number } {
    const slowCap = Math.max(4, Math.floor(concurrency / 10));
    return { slowCap, fastCap: Math.max(slowCap, Math.ceil(concurrency / 2)) };
  }

  /** Whether a job for `webhookId` may go ahead: its receiver's taken slots are fewer than its cap. */
  hasRoom(webhookId: string): boolean {
    const state = this.state(webhookId);
    return state.startedAt.length + state.reserved < this.capOf(state);
  }

  /** Takes a slot for a job to `webhookId` if its receiver has room; `release` it on every path. */
  reserve(webhookId: string): Slot | null {
    if (!this.hasRoom(webhookId)) return null;
    this.state(webhookId).reserved += 1;
    return new Slot(this, webhookId);
  }

  /** A request to `webhookId` is being sent; pass the answer to `end`. */
  begin(webhookId: string): number {
    const startedAt = this.now();
    this.state(webhookId).startedAt.push(startedAt);
    return startedAt;
  }

  /** …the request begun at `startedAt` has ended; its duration feeds the receiver's average. */
  end(webhookId: string, startedAt: number): void {
    const state = this.state(webhookId);
    const i = state.startedAt.indexOf(startedAt);
    if (i >= 0) state.startedAt.splice(i, 1);
    const durationMs = Math.max(0, state.lastUsed - startedAt);
    state.averageMs = state.averageMs === null ? durationMs : state.averageMs + SMOOTHING * (durationMs - state.averageMs);
  }

  /** Gives back a reserved slot that did not (or no longer) become a request. */
  unreserve(webhookId: string): void {
    const state = this.state(webhookId);
    state.reserved = Math.max(0, state.reserved - 1);
  }

  /** How long to postpone a job over its receiver's cap; remembers it as waiting for this receiver. */
  postponeMs(webhookId: string): number {
    const state = this.state(webhookId);
    const now = state.lastUsed;
    state.postponedUntil = state.postponedUntil.filter((due) => due > now);
    const ahead = state.postponedUntil.length;
    // A receiver that has not answered for a while is at least that slow, whatever its average says.
    // One that has not answered yet at all is capped as slow, but its jobs wait only for what its
    // requests in flight show: a new receiver's backlog must not be spread over seconds on a guess.
    const oldest = state.startedAt[0];
    const durationMs = Math.max(state.averageMs ?? 0, oldest === undefined ? 0 : now - oldest);
    const waitForSlot = ((ahead + 1) * durationMs) / this.capOf(state);
    const base = Math.min(this.options.maxPostponeMs, Math.max(this.options.minPostponeMs, waitForSlot));
    // ±25 %, so postponed jobs do not all come back in the same instant.
    const delay = Math.round(base * (0.75 + 0.5 * this.random()));
    state.postponedUntil.push(now + delay);
    return delay;
  }

  /** Slots taken for `webhookId`: requests in flight and jobs about to send one. */
  inFlight(webhookId: string): number {
    const state = this.receivers.get(webhookId);
    return state ? state.startedAt.length + state.reserved : 0;
  }

  isSlow(webhookId: string): boolean {
    return this.slow(this.state(webhookId));
  }

  /** Forgets receivers with nothing in flight, nothing postponed and no job for a while. */
  sweep(): void {
    const now = this.now();
    for (const [id, state] of this.receivers) {
      if (state.startedAt.length === 0 && state.reserved === 0 && now - state.lastUsed > FORGET_AFTER_MS && state.postponedUntil.every((due) => due <= now)) {
        this.receivers.delete(id);
      }
    }
  }

  get size(): number {
    return this.receivers.size;
  }

  private capOf(state: ReceiverState): number {
    return this.slow(state) ? this.options.slowCap : this.options.fastCap;
  }

  private slow(state: ReceiverState): boolean {
    const oldest = state.startedAt[0];
    if (state.averageMs === null || state.averageMs >= this.options.slowAfterMs) return true;
    return oldest !== undefined && state.lastUsed - oldest >= this.options.slowAfterMs;
  }

  private state(webhookId: string): ReceiverState {
    let state = this.receivers.get(webhookId);
    if (!state) {
      // Unknown receivers count as slow until their first answer.
      state = { startedAt: [], reserved: 0, averageMs: null, postponedUntil: [], lastUsed: 0 };
      this.receivers.set(webhookId, state);
    }
    state.lastUsed = this.now();
    return state;
  }
}

/** One job's place in its receiver's cap, from `reserve` until `release` (idempotent). */
export class Slot {
  private startedAt: number | null = null;
  private released = false;

  constructor(
    private readonly fairness: ReceiverFairness,
    private readonly webhookId: string,
  ) {}

  /** The job sends its request now: the slot becomes a request in flight. */
  begin(): void {
    if (this.released || this.startedAt !== null) return;
    this.fairness.unreserve(this.webhookId);
    this.startedAt = this.fairness.begin(this.webhookId);
  }

  /** Frees the slot: ends the request if one was sent, otherwise gives the reservation back. */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.startedAt === null) this.fairness.unreserve(this.webhookId);
    else this.fairness.end(this.webhookId, this.startedAt);
  }
}
