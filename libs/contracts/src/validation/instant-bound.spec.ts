import { parseInstantBound } from './instant-bound';

describe('parseInstantBound', () => {
  it.each([
    ['2026-03-01', 'from', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01', 'to', '2026-03-01T23:59:59.999Z'],
    ['2024-02-29', 'to', '2024-02-29T23:59:59.999Z'],
    ['2026-03-01T10:20:30Z', 'from', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T10:20:30Z', 'to', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T10:20', 'from', '2026-03-01T10:20:00.000Z'],
    ['2026-03-01T10:20:30.123456Z', 'from', '2026-03-01T10:20:30.123Z'],
    ['2026-03-01T10:20:30+02:00', 'from', '2026-03-01T08:20:30.000Z'],
    ['2026-03-01T00:30:00-0130', 'from', '2026-03-01T02:00:00.000Z'],
  ] as const)('%s as %s is %s', (value, bound, expected) => {
    expect(parseInstantBound(value, bound)?.toISOString()).toBe(expected);
  });

  it.each(['yesterday', '2026-13-01', '2023-02-29', '2026-03-01T24:00:00Z', '2026-03-01T10:61Z', '2026-3-1', '2026-03-01T10', '', '2026-03-01T10:00:00+25:00', 12])(
    '%s is not parseable',
    (value) => {
      expect(parseInstantBound(value, 'from')).toBeNull();
    },
  );
});
