import { NoisyNeighbourSuite, noisyNeighbourTable, SHORT_NOISY_PROFILE } from '@dc/testing';

/**
 * Tenant isolation (bench/README.md, "noisy-neighbour"): the suite's short profile. Tenant B's
 * mix alone, then beside tenant A at the documented limits (poison files, a backlog of large imports,
 * an Idempotency-Key flood, date-filter scans, webhooks to slow, failing and hanging receivers). B's
 * next import waits at most one chunk of A's work more than alone, its first-attempt delivery and
 * read p99 stay within 3× of alone, it gets no error; no process exits, no import is stuck, the
 * importer and the idempotency Redis stay within their memory bounds. `npm run noisy-neighbour` runs
 * the long profile.
 */
jest.setTimeout(240_000);

describe('noisy neighbour (short profile)', () => {
  let suite: NoisyNeighbourSuite;

  beforeAll(async () => {
    suite = await NoisyNeighbourSuite.start(SHORT_NOISY_PROFILE);
  }, 120_000);
  afterAll(() => suite?.stop());

  it("tenant A at the documented limits does not stall, starve or crash tenant B's mix", async () => {
    const result = await suite.run((line) => console.log(line));
    const missed = result.targets.filter((t) => !t.met);
    console.log(`noisy neighbour, ${SHORT_NOISY_PROFILE.name} profile\n${noisyNeighbourTable(result)}${missed.length ? `\n${suite.problems()}` : ''}`);
    expect(missed).toEqual([]);
    // A's load really ran: its backlog was importing when B enqueued, its poison files ended, the edge refused the oversized upload.
    expect(result.beside.aImporting).toBe(true);
    expect(result.a.oversizedStatus).toBe(413);
    expect(result.a.receivers.slow + result.a.receivers.failing + result.a.receivers.hanging).toBeGreaterThan(0);
  });
});
