import { ReceiverFairness, Slot } from './receiver-fairness';

export interface FairSharesOptions {
  /** Attempts this process runs at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** The percentage of them one organization's attempts to slow receivers may hold (WEBHOOK_ORGANIZATION_SHARE_PERCENT). */
  organizationSharePercent: number;
  /** As in ReceiverFairness: when a receiver counts as slow, and the bounds of a postponement. */
  slowAfterMs: number;
  minPostponeMs: number;
  maxPostponeMs: number;
  random?: () => number;
  now?: () => number;
}

/** Why a job may not go ahead now, as counted by webhook_jobs_postponed_total. */
export type BusyReason = 'receiver_busy' | 'organization_busy';

export type Reservation = { kind: 'go'; slot: SharedSlot } | { kind: 'postpone'; reason: BusyReason; delayMs: number };

/**
 * Fair shares of one dispatcher process: today's per-receiver rule (ReceiverFairness, docs/adr/0020)
 * and, on top of it, the same rule per organization (OrganizationShares, docs/adr/0044). A job goes
 * ahead only when its webhook has a free slot and, if that receiver is slow (as ReceiverFairness
 * judges it: 1 s or more, hanging, or not heard from yet), its organization has one too; otherwise
 * it is postponed, consuming no attempt, for about as long as it would wait for the slot it lacks.
 *
 * A prompt receiver's requests do not count toward its organization's share: they free their slots
 * within the second, so holding them costs other organizations little, while capping them made a
 * lone organization's backlog pass through the queue twice (postponed, then taken again) and
 * postponed the bursts of a steady stream (bench/results/fair-deliveries.md).
 */
export class FairShares {
  readonly receivers: ReceiverFairness;
  readonly organizations: OrganizationShares;

  constructor(options: FairSharesOptions) {
    const { concurrency, organizationSharePercent, slowAfterMs, ...postponement } = options;
    this.receivers = new ReceiverFairness({ ...ReceiverFairness.capsFor(concurrency), slowAfterMs, ...postponement });
    this.organizations = new OrganizationShares({ cap: OrganizationShares.capFor(concurrency, organizationSharePercent), ...postponement });
  }

  /** Takes a slot under both caps (before the job's first await), or says which one is full and how long to postpone the job. */
  reserve(webhookId: string, organizationId: string): Reservation {
    const receiver = this.receivers.reserve(webhookId);
    if (!receiver) return { kind: 'postpone', reason: 'receiver_busy', delayMs: this.receivers.postponeMs(webhookId) };
    if (!this.receivers.isSlow(webhookId)) return { kind: 'go', slot: new SharedSlot(receiver, () => undefined) };
    if (!this.organizations.reserve(organizationId)) {
      receiver.release();
      return { kind: 'postpone', reason: 'organization_busy', delayMs: this.organizations.postponeMs(organizationId) };
    }
    return { kind: 'go', slot: new SharedSlot(receiver, () => this.organizations.release(organizationId)) };
  }

  sweep(): void {
    this.receivers.sweep();
    this.organizations.sweep();
  }
}

/** A job's place under its receiver's and its organization's caps, from `reserve` until `release` (idempotent). */
export class SharedSlot {
  private released = false;

  constructor(
    private readonly receiver: Slot,
    private readonly releaseOrganization: () => void,
  ) {}

  /** The job sends its request now (it feeds its receiver's average duration). */
  begin(): void {
    this.receiver.begin();
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.receiver.release();
    this.releaseOrganization();
  }
}

interface OrganizationState {
  /** Slots its jobs hold: claiming, sending or recording an attempt. */
  held: number;
  /** When it last went from holding none to holding one. */
  busySince: number;
  /** Slots freed, each fading as e^(-age / TURNOVER_WINDOW_MS), as of `freedAt`: how fast its slots free lately. */
  freed: number;
  freedAt: number;
  /** When the jobs this process postponed for it come due again. */
  postponedUntil: number[];
  lastUsed: number;
}

/** The time over which an organization's rate of freed slots is averaged. */
const TURNOVER_WINDOW_MS = 1_000;
/** An organization not seen for this long is forgotten (its state is rebuilt on its next job). */
const FORGET_AFTER_MS = 10 * 60_000;

/**
 * The per-organization cap of one dispatcher process (docs/adr/0044): the slots an organization's
 * jobs to slow receivers hold (FairShares) are at most `cap` (half the concurrency by default), so
 * the rest of the process is always free for other organizations, and one organization's many slow
 * webhooks (each within its own receiver cap, a tenth) cannot make another's first attempt wait for
 * their requests to end.
 *
 * A job over the cap is postponed for about its wait: the jobs already postponed for the
 * organization over the rate at which its slots have been freed lately. Not a request duration: an
 * organization mixes receivers that take a second with ones that hang, and one request that times
 * out says nothing about how soon the others free a slot. Before any slot is freed, the slots held
 * so far bound that rate (none has freed in the time they have been held), so a backlog behind
 * receivers that take seconds is spread out from its first second rather than re-fetched every
 * 250 ms.
 */
export class OrganizationShares {
  private readonly organizations = new Map<string, OrganizationState>();
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(private readonly options: { cap: number; minPostponeMs: number; maxPostponeMs: number; random?: () => number; now?: () => number }) {
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => performance.now());
  }

  /** Slots one organization may hold in a process: its share of the concurrency, at least 1. */
  static capFor(concurrency: number, sharePercent: number): number {
    return Math.max(1, Math.floor((concurrency * sharePercent) / 100));
  }

  get cap(): number {
    return this.options.cap;
  }

  /** Takes a slot for the organization if it holds fewer than its cap; `release` it on every path. */
  reserve(organizationId: string): boolean {
    const state = this.state(organizationId);
    if (state.held >= this.options.cap) return false;
    if (state.held === 0) state.busySince = state.lastUsed;
    state.held += 1;
    return true;
  }

  release(organizationId: string): void {
    const state = this.state(organizationId);
    state.held = Math.max(0, state.held - 1);
    state.freed = this.freedLately(state, state.lastUsed) + 1;
    state.freedAt = state.lastUsed;
  }

  /** How long to postpone a job over its organization's cap; remembers it as waiting for that organization. */
  postponeMs(organizationId: string): number {
    const state = this.state(organizationId);
    const now = state.lastUsed;
    state.postponedUntil = state.postponedUntil.filter((due) => due > now);
    const waitForSlot = (state.postponedUntil.length + 1) / this.freedPerMs(state, now);
    const base = Math.min(this.options.maxPostponeMs, Math.max(this.options.minPostponeMs, waitForSlot));
    // ±25 %, so postponed jobs do not all come back in the same instant.
    const delay = Math.round(base * (0.75 + 0.5 * this.random()));
    state.postponedUntil.push(now + delay);
    return delay;
  }

  /** Slots the organization's jobs hold in this process. */
  held(organizationId: string): number {
    return this.organizations.get(organizationId)?.held ?? 0;
  }

  /** Forgets organizations holding nothing, with nothing postponed and no job for a while. */
  sweep(): void {
    const now = this.now();
    for (const [id, state] of this.organizations) {
      if (state.held === 0 && now - state.lastUsed > FORGET_AFTER_MS && state.postponedUntil.every((due) => due <= now)) this.organizations.delete(id);
    }
  }

  get size(): number {
    return this.organizations.size;
  }

  private freedLately(state: OrganizationState, now: number): number {
    return state.freed * Math.exp((state.freedAt - now) / TURNOVER_WINDOW_MS);
  }

  /** Slots the organization frees per ms, as seen lately. */
  private freedPerMs(state: OrganizationState, now: number): number {
    const busyMs = Math.max(1, now - state.busySince);
    const freed = this.freedLately(state, now);
    if (freed < 1) return Math.max(1, state.held) / busyMs;
    // A steady rate r leaves r × W × (1 − e^(−t/W)) after t: divide by that, so that a busy stretch
    // that has just begun does not read as a slow one.
    return freed / (TURNOVER_WINDOW_MS * (1 - Math.exp(-busyMs / TURNOVER_WINDOW_MS)));
  }

  private state(organizationId: string): OrganizationState {
    let state = this.organizations.get(organizationId);
    const now = this.now();
    if (!state) {
      state = { held: 0, busySince: now, freed: 0, freedAt: now, postponedUntil: [], lastUsed: now };
      this.organizations.set(organizationId, state);
    }
    state.lastUsed = now;
    return state;
  }
}
