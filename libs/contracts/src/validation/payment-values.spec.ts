import { hasAtMostFourDecimals } from './decimal-amount';
import { isCalendarDate, isIsoDateOrDateTime } from './iso-date';

describe('payment value checks', () => {
  it.each([[0.0001, true], [125.5, true], [1.0001, true], [10.12345, false], [1e-7, false], [Number.NaN, false], [Infinity, false], ['10', false]])(
    'hasAtMostFourDecimals(%p) is %p',
    (value, expected) => expect(hasAtMostFourDecimals(value)).toBe(expected),
  );

  it.each([['2024-02-29', true], ['2023-02-29', false], ['2024-13-01', false], ['2024-04-31', false], ['2024-1-01', false], ['2024-03-10T00:00:00Z', false]])(
    'isCalendarDate(%p) is %p',
    (value, expected) => expect(isCalendarDate(value)).toBe(expected),
  );

  it.each([
    ['2024-03-10', true], ['2024-03-10T23:59:59Z', true], ['2024-03-10T10:00', true], ['2024-03-10T10:00:00.123+02:00', true],
    ['2024-03-10T10:00:00-0500', true], ['2024-03-10T24:00:00Z', false], ['2024-03-10 10:00', false], ['2024-02-30', false],
    ['yesterday', false], ['2024-W10', false], ['', false],
  ])('isIsoDateOrDateTime(%p) is %p', (value, expected) => expect(isIsoDateOrDateTime(value)).toBe(expected));
});
