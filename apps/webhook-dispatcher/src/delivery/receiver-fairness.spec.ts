import { ReceiverFairness } from './receiver-fairness';

function fairness(clock: { t: number }, caps = { slowCap: 2, fastCap: 5 }) {
  return new ReceiverFairness({ ...caps, slowAfterMs: 1_000, minPostponeMs: 250, maxPostponeMs: 60_000, random: () => 0.5, now: () => clock.t });
}

/** One request to `id` that takes `ms`. */
function request(f: ReceiverFairness, clock: { t: number }, id: string, ms: number) {
  const started = f.begin(id);
  clock.t += ms;
  f.end(id, started);
}

describe('ReceiverFairness', () => {
  it('caps: a tenth of the concurrency (at least 4) for a slow receiver, half for a prompt one', () => {
    expect(ReceiverFairness.capsFor(200)).toEqual({ slowCap: 20, fastCap: 100 });
    expect(ReceiverFairness.capsFor(16)).toEqual({ slowCap: 4, fastCap: 8 });
    expect(ReceiverFairness.capsFor(1)).toEqual({ slowCap: 4, fastCap: 4 });
  });

  it('a receiver that has not answered yet gets the slow cap; once it answers promptly, the fast cap', () => {
    const clock = { t: 0 };
    const f = fairness(clock);
    f.begin('a');
    f.begin('a');
    expect(f.hasRoom('a')).toBe(false);
    const g = fairness(clock);
    request(g, clock, 'a', 5);
    expect(g.isSlow('a')).toBe(false);
    for (let i = 0; i < 5; i += 1) {
      expect(g.hasRoom('a')).toBe(true);
      g.begin('a');
    }
    expect(g.hasRoom('a')).toBe(false);
    expect(g.hasRoom('b')).toBe(true);
  });

  it('a prompt receiver whose requests start hanging is capped as slow once one has waited slowAfterMs', () => {
    const clock = { t: 0 };
    const f = fairness(clock);
    request(f, clock, 'a', 5);
    f.begin('a');
    f.begin('a');
    f.begin('a');
    expect(f.hasRoom('a')).toBe(true); // 3 < fast cap 5
    clock.t += 1_000;
    expect(f.isSlow('a')).toBe(true);
    expect(f.hasRoom('a')).toBe(false); // 3 ≥ slow cap 2
  });

  it('a receiver whose requests take long on average stays slow; a quick recovery brings it back', () => {
    const clock = { t: 0 };
    const f = fairness(clock);
    for (let i = 0; i < 10; i += 1) request(f, clock, 'a', 10_000);
    expect(f.isSlow('a')).toBe(true);
    for (let i = 0; i < 20; i += 1) request(f, clock, 'a', 5);
    expect(f.isSlow('a')).toBe(false);
  });

  it('jobs that start together take slots before any request is sent: no more than the cap pass', () => {
    // The race CI found: 8 jobs for a new (slow-capped) receiver all checked for room before the
    // first one had sent its request, so all 8 went ahead and the hanging receiver held the worker.
    const clock = { t: 0 };
    const f = fairness(clock);
    const slots = Array.from({ length: 8 }, () => f.reserve('hung'));
    expect(slots.filter((slot) => slot !== null)).toHaveLength(2);
    expect(f.inFlight('hung')).toBe(2);
    expect(f.reserve('other')).not.toBeNull();
  });

  it('a slot is given back whether or not its request was sent, once only', () => {
    const clock = { t: 0 };
    const f = fairness(clock);
    const unsent = f.reserve('a')!;
    const sent = f.reserve('a')!;
    sent.begin();
    clock.t += 5;
    unsent.release();
    unsent.release();
    expect(f.inFlight('a')).toBe(1);
    sent.release();
    sent.release();
    expect(f.inFlight('a')).toBe(0);
    // Only the sent request fed the average: 5 ms, so the receiver now counts as prompt.
    expect(f.isSlow('a')).toBe(false);
  });

  it('ending one request frees exactly its slot', () => {
    const clock = { t: 0 };
    const f = fairness(clock);
    request(f, clock, 'a', 1);
    const first = f.begin('a');
    clock.t += 1;
    f.begin('a');
    f.end('a', first);
    expect(f.inFlight('a')).toBe(1);
  });

  it('postpones a prompt receiver at its cap briefly (the minimum)', () => {
    const clock = { t: 0 };
    const f = fairness(clock);
    request(f, clock, 'a', 5);
    expect(f.postponeMs('a')).toBe(250);
  });

  it('postpones the backlog of a receiver that times out for about its wait for a slot, bounded', () => {
    const clock = { t: 1_000_000 };
    const f = fairness(clock, { slowCap: 20, fastCap: 100 });
    for (let i = 0; i < 40; i += 1) request(f, clock, 'slow', 10_000);
    // Average ≈ 10 s, cap 20: one job waits ~0.5 s per job already waiting ahead of it.
    const first = f.postponeMs('slow');
    expect(first).toBeGreaterThanOrEqual(400);
    expect(first).toBeLessThanOrEqual(600);
    let last = first;
    for (let i = 0; i < 200; i += 1) last = f.postponeMs('slow');
    expect(last).toBe(60_000);
    // Once their due times have passed they no longer count as waiting.
    clock.t += 61_000;
    expect(f.postponeMs('slow')).toBeLessThanOrEqual(600);
  });

  it('a new receiver\'s backlog over the slow cap is postponed briefly: there is no evidence yet that it is slow', () => {
    // The bench found it: a backlog's first 200 jobs met 4 unknown receivers, and the 180 over the
    // slow cap were postponed as if each request took slowAfterMs (up to 9 s for the last); the
    // receivers answered in 2 ms, so those jobs formed a 3-second tail after the rest was sent.
    const clock = { t: 0 };
    const f = fairness(clock, { slowCap: 20, fastCap: 100 });
    for (let i = 0; i < 20; i += 1) f.begin('new');
    clock.t += 3;
    const delays = Array.from({ length: 180 }, () => f.postponeMs('new'));
    expect(Math.max(...delays)).toBe(250);
    // Its requests hanging past slowAfterMs are the evidence: then its backlog waits for its slots.
    clock.t = 4_000;
    const later = Array.from({ length: 20 }, () => f.postponeMs('new'));
    expect(later[19]).toBe(4_000); // 20 jobs ahead × 4 s / cap 20
  });

  it('a receiver that has not answered for a while is postponed for at least that long per job ahead', () => {
    const clock = { t: 0 };
    const f = fairness(clock, { slowCap: 2, fastCap: 5 });
    f.begin('never');
    f.begin('never');
    clock.t += 4_000;
    expect(f.hasRoom('never')).toBe(false);
    expect(f.postponeMs('never')).toBe(2_000); // (0 ahead + 1) × 4 s / cap 2
    expect(f.postponeMs('never')).toBe(4_000);
  });

  it('forgets idle receivers only when nothing is in flight or postponed', () => {
    const clock = { t: 0 };
    const f = fairness(clock);
    f.begin('busy');
    request(f, clock, 'idle', 1);
    clock.t += 11 * 60_000;
    f.sweep();
    expect(f.size).toBe(1);
    expect(f.inFlight('busy')).toBe(1);
  });
});
