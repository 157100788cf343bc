import { AnalyzeSchedule } from './analyze-schedule';

describe('AnalyzeSchedule', () => {
  it('is due once `first` rows are written, then at each doubling', () => {
    const schedule = new AnalyzeSchedule(10_000);
    const due = [5_000, 9_999, 10_000, 15_000, 19_999, 20_000, 39_000, 45_000, 80_000, 80_001, 1_000_000, 1_200_000].filter((w) => schedule.due(w));
    expect(due).toEqual([10_000, 20_000, 45_000, 80_000, 1_000_000]);
  });

  it('a jump past several doublings is one ANALYZE', () => {
    const schedule = new AnalyzeSchedule(100);
    expect(schedule.due(10_000)).toBe(true);
    expect(schedule.due(12_000)).toBe(false);
    expect(schedule.due(12_800)).toBe(true);
  });

  it('0 means from the first row', () => {
    expect(new AnalyzeSchedule(0).due(1)).toBe(true);
  });
});
