import { MixFigures, NoisyFigures, PlatformFigures, targetsOf, workSlices } from './figures';
import { quantile } from './tenant-api';

describe('noisy-neighbour figures', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, s)).toISOString();
  const line = (s: number, importId: string, msg: string) => ({ time: at(s), importId, msg });
  const t0 = Date.parse(at(0));

  it("slices A's work: each chunk from its run's start or previous chunk, the finish, and a yield's handover to the next run", () => {
    const logs = [
      line(0, 'a1', 'import started'),
      line(2, 'a1', 'import chunk merged'),
      line(3, 'a1', 'import chunk merged'),
      // a1 yields to b (no line of its own): the handover until b starts is a1's
      line(4, 'b', 'import started'),
      line(5, 'b', 'import chunk merged'),
      line(5, 'b', 'import completed'),
      line(6, 'a1', 'import started'),
      line(7, 'a1', 'import chunk merged'),
      line(9, 'a1', 'import completed'),
      { time: at(9), msg: 'not an import line' },
      line(10, 'a2', 'import started'),
      line(11, 'a2', 'import failed'),
    ];
    expect(workSlices(logs, new Set(['a1', 'a2']), t0, t0 + 60_000)).toEqual([2_000, 2_000, 1_000, 2_000, 1_000]);
    // Only the slices that ended within the window.
    expect(workSlices(logs, new Set(['a1']), t0 + 6_500, t0 + 8_000)).toEqual([1_000]);
  });

  it('p50 and p99 by the nearest rank', () => {
    const values = Array.from({ length: 200 }, (_, i) => 200 - i);
    expect([quantile(values, 0.5), quantile(values, 0.99), quantile([7], 0.99)]).toEqual([100, 198, 7]);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it("B's p99 targets: within 3× of quiet, or of quiet + 100 ms where that is more (a stall still fails)", () => {
    const mix = (label: 'quiet' | 'beside', reads: number[], firstAttempts: number[]): MixFigures => ({ label, reads, firstAttempts, errors: {}, requests: reads.length });
    const a: NoisyFigures = { slices: [1_000], imports: [], activities: [], receivers: { slow: 0, failing: 0, hanging: 0 } } as unknown as NoisyFigures;
    const platform: PlatformFigures = { importerPeakMiB: 100, redis: [], exited: [], stuck: [] } as unknown as PlatformFigures;
    const reads = (p99: number) => [...Array.from({ length: 98 }, () => 5), p99, p99];
    const target = (quietP99: number, besideP99: number, quietAttempt = 250, besideAttempt = 250) =>
      targetsOf(mix('quiet', reads(quietP99), reads(quietAttempt)), mix('beside', reads(besideP99), reads(besideAttempt)), a, platform)
        .filter((t) => t.figure.startsWith("B's read p99") || t.figure.startsWith("B's first-attempt"))
        .map((t) => [t.figure, t.bound, t.met]);
    // A fast quiet run: the slack decides (before it, 55 against 3 × 14 = 42 failed).
    expect(target(14, 55)[1]).toEqual(["B's read p99", '≤ quiet + 100 = 114 ms', true]);
    expect(target(14, 115)[1]).toEqual(["B's read p99", '≤ quiet + 100 = 114 ms', false]);
    // A slower one: 3× decides.
    expect(target(60, 180)[1]).toEqual(["B's read p99", '≤ 3 × quiet = 180 ms', true]);
    expect(target(60, 181)[1]).toEqual(["B's read p99", '≤ 3 × quiet = 180 ms', false]);
    expect(target(14, 14, 250, 751)[0]).toEqual(["B's first-attempt delivery p99", '≤ 3 × quiet = 750 ms', false]);
  });
});
