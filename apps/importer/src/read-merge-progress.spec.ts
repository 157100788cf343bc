import { ReadMergeProgress } from './read-merge-progress';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('ReadMergeProgress', () => {
  it('the merger waits for a full chunk, or for the end of the file', async () => {
    const progress = new ReadMergeProgress(1, false, 1, 100, 2);
    const wait = progress.untilChunkOrEnd();
    expect(await settled(wait)).toBe(false);
    progress.stagedTo(51, false);
    expect(await settled(wait)).toBe(false);
    progress.stagedTo(101, false);
    expect(await settled(wait)).toBe(true);

    progress.mergedTo(101);
    const rest = progress.untilChunkOrEnd();
    progress.stagedTo(130, true);
    expect(await settled(rest)).toBe(true);
  });

  it('the reader waits while it is `lookahead` chunks ahead of the merger', async () => {
    const progress = new ReadMergeProgress(201, false, 1, 100, 2);
    const wait = progress.untilMergerCatchesUp();
    expect(await settled(wait)).toBe(false);
    progress.mergedTo(101);
    expect(await settled(wait)).toBe(true);
    expect(await settled(progress.untilMergerCatchesUp())).toBe(true);
  });

  it('a halt ends every wait', async () => {
    const progress = new ReadMergeProgress(1000, false, 1, 100, 2);
    const reader = progress.untilMergerCatchesUp();
    const merger = new ReadMergeProgress(1, false, 1, 100, 2);
    const mergerWait = merger.untilChunkOrEnd();
    progress.halt();
    merger.halt();
    expect(await settled(reader)).toBe(true);
    expect(await settled(mergerWait)).toBe(true);
    expect(progress.halted).toBe(true);
  });
});
