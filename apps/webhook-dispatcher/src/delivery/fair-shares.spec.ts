import { FairShares, OrganizationShares, Reservation, SharedSlot } from './fair-shares';

const TIMING = { minPostponeMs: 250, maxPostponeMs: 60_000, random: () => 0.5 };

/** 20 attempts at once: a slow receiver may have 4, a prompt one 10, an organization (50 %) 10. */
function shares(clock: { t: number }, organizationSharePercent = 50) {
  return new FairShares({ concurrency: 20, organizationSharePercent, slowAfterMs: 1_000, ...TIMING, now: () => clock.t });
}

function organizations(clock: { t: number }, cap = 10) {
  return new OrganizationShares({ cap, ...TIMING, now: () => clock.t });
}

const slotOf = (r: Reservation): SharedSlot => {
  if (r.kind !== 'go') throw new Error(`expected a slot, got ${r.reason}`);
  return r.slot;
};

/** `count` slots of `id` held at once, each freed and taken again `holdMs` after it was taken, one every holdMs / count, for `forMs`. */
function turnOver(o: OrganizationShares, clock: { t: number }, id: string, count: number, holdMs: number, forMs: number) {
  for (let i = 0; i < count; i += 1) o.reserve(id);
  const step = holdMs / count;
  for (let elapsed = 0; elapsed < forMs; elapsed += step) {
    clock.t += step;
    o.release(id);
    o.reserve(id);
  }
}

describe('FairShares', () => {
  it("an organization's cap is its share of the concurrency, at least 1", () => {
    expect(OrganizationShares.capFor(200, 50)).toBe(100);
    expect(OrganizationShares.capFor(200, 100)).toBe(200);
    expect(OrganizationShares.capFor(8, 50)).toBe(4);
    expect(OrganizationShares.capFor(1, 50)).toBe(1);
    expect(shares({ t: 0 }).organizations.cap).toBe(10);
  });

  it("one organization's many slow receivers together get its share; another organization's first job still goes ahead", () => {
    // Organization A has 5 webhooks not heard from yet (slow, until they answer), each allowed 4
    // attempts: 20 between them, which is the whole process without a cap per organization.
    const clock = { t: 0 };
    const f = shares(clock);
    const results = Array.from({ length: 5 }, (_, hook) => Array.from({ length: 4 }, () => f.reserve(`a${hook}`, 'A'))).flat();
    expect(results.filter((r) => r.kind === 'go')).toHaveLength(10);
    expect(results.filter((r) => r.kind === 'postpone' && r.reason === 'organization_busy')).toHaveLength(10);
    expect(f.organizations.held('A')).toBe(10);
    // The webhooks' own slots of the refused jobs were given back: they hold only what went ahead.
    expect([0, 1, 2, 3, 4].reduce((sum, hook) => sum + f.receivers.inFlight(`a${hook}`), 0)).toBe(10);
    expect(f.reserve('b0', 'B').kind).toBe('go');
  });

  it('a receiver at its own cap is postponed as before, whatever room its organization has', () => {
    const f = shares({ t: 0 });
    for (let i = 0; i < 4; i += 1) slotOf(f.reserve('slow', 'A'));
    expect(f.reserve('slow', 'A')).toEqual({ kind: 'postpone', reason: 'receiver_busy', delayMs: 250 });
    expect(f.organizations.held('A')).toBe(4);
    expect(f.reserve('other', 'A').kind).toBe('go');
  });

  it("a prompt receiver's requests do not count toward its organization's share", () => {
    const clock = { t: 0 };
    const f = shares(clock);
    const answered = slotOf(f.reserve('prompt', 'A'));
    answered.begin();
    clock.t += 5;
    answered.release(); // 5 ms: a prompt receiver from now on, allowed 10 at once
    expect(f.organizations.held('A')).toBe(0);
    for (let i = 0; i < 10; i += 1) slotOf(f.reserve('prompt', 'A'));
    expect(f.organizations.held('A')).toBe(0);
    // A slow receiver of the same organization still has all of its share.
    for (let i = 0; i < 4; i += 1) slotOf(f.reserve('slow', 'A'));
    expect(f.organizations.held('A')).toBe(4);
  });

  it('a shared slot frees its receiver and its organization together, once', () => {
    const clock = { t: 0 };
    const f = shares(clock);
    const slot = slotOf(f.reserve('a', 'A'));
    expect([f.receivers.inFlight('a'), f.organizations.held('A')]).toEqual([1, 1]);
    slot.begin();
    clock.t += 5;
    slot.release();
    slot.release();
    expect([f.receivers.inFlight('a'), f.organizations.held('A')]).toEqual([0, 0]);
    expect(f.receivers.isSlow('a')).toBe(false); // the request fed its receiver's average: 5 ms
  });

  it('a share of 100 % leaves only the per-receiver caps', () => {
    const f = shares({ t: 0 }, 100);
    const results = Array.from({ length: 5 }, (_, hook) => Array.from({ length: 4 }, () => f.reserve(`a${hook}`, 'A'))).flat();
    expect(results.every((r) => r.kind === 'go')).toBe(true);
  });
});

describe('OrganizationShares', () => {
  it('postpones a job over the cap for the jobs waiting ahead of it over the rate its slots free', () => {
    // 10 slots, each held 1 s: one frees every 100 ms, so the 10th job waiting is due in about 1 s.
    const clock = { t: 0 };
    const o = organizations(clock);
    turnOver(o, clock, 'A', 10, 1_000, 5_000);
    expect(o.reserve('A')).toBe(false);
    const delays = Array.from({ length: 30 }, () => o.postponeMs('A'));
    expect(delays[0]).toBe(250);
    expect(delays[9]).toBeGreaterThanOrEqual(900);
    expect(delays[9]).toBeLessThanOrEqual(1_000);
    expect(delays[29]).toBeGreaterThanOrEqual(2_700);
    expect(delays[29]).toBeLessThanOrEqual(3_000);
  });

  it('a hanging receiver beside others does not set the wait: the rate at which slots free does', () => {
    // The bench found it: rated like a receiver, by its oldest request in flight (a receiver that
    // never answers), an organization's whole backlog was put off for up to a minute while its
    // other receivers freed slots many times a second.
    const clock = { t: 0 };
    const o = organizations(clock, 100);
    for (let i = 0; i < 20; i += 1) o.reserve('A'); // held by the hanging receiver, never freed
    turnOver(o, clock, 'A', 80, 1_000, 5_000); // 80 slots of 1 s requests: 80 freed a second
    const delays = Array.from({ length: 1_000 }, () => o.postponeMs('A'));
    expect(delays[999]).toBeGreaterThanOrEqual(11_500); // 1,000 jobs at 80 a second: 12.5 s (by the oldest request, 5 s old: 50 s)
    expect(delays[999]).toBeLessThanOrEqual(13_000);
  });

  it("before any slot is freed, the time they have been held spreads a slow organization's backlog", () => {
    const clock = { t: 0 };
    const o = organizations(clock);
    for (let i = 0; i < 10; i += 1) o.reserve('A');
    expect(o.postponeMs('A')).toBe(250); // nothing to go by yet: the shortest postponement
    clock.t = 500; // none freed in 500 ms: at most 10 per 500 ms
    const delays = Array.from({ length: 20 }, () => o.postponeMs('A'));
    expect(delays[9]).toBe(500); // the 10th job waiting, at 20 slots a second
    expect(delays[19]).toBe(1_000);
  });

  it('forgets idle organizations only when they hold nothing and have nothing postponed', () => {
    const clock = { t: 0 };
    const o = organizations(clock);
    o.reserve('busy');
    o.reserve('idle');
    o.release('idle');
    clock.t += 11 * 60_000;
    o.sweep();
    expect(o.size).toBe(1);
    expect(o.held('busy')).toBe(1);
  });
});
