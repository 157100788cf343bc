import { createLogger } from '@dc/observability';
import { PassResult, PollingLoop } from './polling-loop';

describe('PollingLoop', () => {
  const logger = createLogger('test', 'silent');
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs again at once after a full pass, after the interval when idle, and backs off after failures', async () => {
    const results: (PassResult | Error)[] = ['more', 'idle', new Error('db down'), 'idle'];
    const at: number[] = [];
    const loop = new PollingLoop(
      async () => {
        at.push(Date.now());
        const next = results.shift() ?? 'idle';
        if (next instanceof Error) throw next;
        return next;
      },
      logger,
      { name: 'test', intervalMs: 100 },
    );
    loop.start();
    await jest.advanceTimersByTimeAsync(350);
    await loop.stop();
    // more → at once (a zero timer: at most 1 ms on the fake clock); idle → 100 ms; failed → 2 × 100 ms.
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    expect(gaps).toHaveLength(3);
    expect(gaps[0]).toBeLessThanOrEqual(1);
    expect(gaps.slice(1)).toEqual([100, 200]);
  });

  it('says it is stopping from stop() until the next start, and stop() waits for the pass in progress', async () => {
    let release!: () => void;
    let seenStopping: boolean | undefined;
    const loop: PollingLoop = new PollingLoop(
      async () => {
        await new Promise<void>((resolve) => (release = resolve));
        seenStopping = loop.stopping;
        return 'more';
      },
      logger,
      { name: 'test', intervalMs: 100 },
    );
    expect(loop.stopping).toBe(false); // a pass run directly before start() is not cut short
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    expect(loop.stopping).toBe(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(seenStopping).toBe(true);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(stopped).toBe(true);
    loop.start();
    expect(loop.stopping).toBe(false);
    await loop.stop().catch(() => undefined);
    release?.();
  });
});
