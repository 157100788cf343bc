import { autoDisabledReason, describeLastError, describePeriod, disableCheckIntervalMs } from './disabled-reason';

describe('autoDisabledReason', () => {
  const since = new Date('2026-11-24T10:00:00.000Z');

  it('names the period, the first failure and the last error', () => {
    expect(autoDisabledReason(since, 5 * 86_400, { errorClass: 'http_status', statusCode: 503 })).toBe(
      'every delivery attempt failed for 5 days since 2026-11-24T10:00:00.000Z (last error: http_status 503)',
    );
    expect(autoDisabledReason(since, 86_400, { errorClass: 'timeout', statusCode: null })).toBe(
      'every delivery attempt failed for 1 day since 2026-11-24T10:00:00.000Z (last error: timeout)',
    );
  });

  it('leaves the last error out when none is known', () => {
    expect(autoDisabledReason(since, 3, null)).toBe('every delivery attempt failed for 3 seconds since 2026-11-24T10:00:00.000Z');
    expect(describeLastError({ errorClass: null, statusCode: null })).toBeNull();
  });

  it('writes a period in the largest unit that divides it', () => {
    expect(describePeriod(432_000)).toBe('5 days');
    expect(describePeriod(7_200)).toBe('2 hours');
    expect(describePeriod(3_600)).toBe('1 hour');
    expect(describePeriod(120)).toBe('2 minutes');
    expect(describePeriod(90)).toBe('90 seconds');
    expect(describePeriod(1)).toBe('1 second');
    expect(describePeriod(90_000)).toBe('25 hours');
  });
});

describe('disableCheckIntervalMs', () => {
  it('a tenth of the period, between half a second and a minute', () => {
    expect(disableCheckIntervalMs(5 * 86_400)).toBe(60_000);
    expect(disableCheckIntervalMs(300)).toBe(30_000);
    expect(disableCheckIntervalMs(3)).toBe(500);
    expect(disableCheckIntervalMs(10)).toBe(1_000);
  });
});
