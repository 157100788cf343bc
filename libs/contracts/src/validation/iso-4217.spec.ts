import { isIso4217 } from './iso-4217';

describe('isIso4217', () => {
  it.each(['EUR', 'USD', 'GBP', 'JPY', 'XCG'])('%s is a currency', (code) => {
    expect(isIso4217(code)).toBe(true);
  });

  it.each(['XXX', 'XTS', 'eur', 'ABC', 'EURO', '', 7, null])('%p is not', (code) => {
    expect(isIso4217(code)).toBe(false);
  });
});
