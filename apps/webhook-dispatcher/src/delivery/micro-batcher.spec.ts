import { MicroBatcher } from './micro-batcher';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('MicroBatcher', () => {
  it('hands the items submitted in one turn of the event loop to one run, and answers each with its own result', async () => {
    const runs: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      runs.push(items);
      return items.map((i) => i * 10);
    }, { maxBatch: 100, maxConcurrent: 1 });
    const results = await Promise.all([1, 2, 3].map((i) => batcher.submit(i)));
    expect(results).toEqual([10, 20, 30]);
    expect(runs).toEqual([[1, 2, 3]]);
  });

  it('never puts more than maxBatch items in one run', async () => {
    const runs: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      runs.push(items);
      return items;
    }, { maxBatch: 2, maxConcurrent: 10 });
    await Promise.all([1, 2, 3, 4, 5].map((i) => batcher.submit(i)));
    expect(runs).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('while maxConcurrent runs are busy, later items wait and go together into the next run', async () => {
    const gate = deferred<void>();
    const runs: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      runs.push(items);
      if (runs.length === 1) await gate.promise;
      return items;
    }, { maxBatch: 100, maxConcurrent: 1 });
    const first = batcher.submit(1);
    await new Promise((r) => setImmediate(r));
    const later = [2, 3, 4].map((i) => batcher.submit(i));
    await new Promise((r) => setImmediate(r));
    expect(runs).toEqual([[1]]);
    expect(batcher.waiting).toBe(3);
    gate.resolve();
    await Promise.all([first, ...later]);
    expect(runs).toEqual([[1], [2, 3, 4]]);
  });

  it('a failed run rejects every item of its batch, and the next batch runs normally', async () => {
    let calls = 0;
    const batcher = new MicroBatcher<number, number>(async (items) => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
      return items;
    }, { maxBatch: 100, maxConcurrent: 1 });
    const failed = await Promise.allSettled([batcher.submit(1), batcher.submit(2)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(batcher.submit(3)).resolves.toBe(3);
  });

  it('a run that answers the wrong number of results rejects its items instead of misassigning them', async () => {
    const batcher = new MicroBatcher<number, number>(async () => [1], { maxBatch: 100, maxConcurrent: 1 });
    const results = await Promise.allSettled([batcher.submit(1), batcher.submit(2)]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
  });
});
