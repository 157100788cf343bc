import { assertStorageKey, isStorageKey } from './storage-key';
import { InvalidStorageKeyError } from './storage-errors';

describe('isStorageKey', () => {
  it.each(['portfolios/pf_01JX/uploads/upl_01JY.csv', 'a', 'a/b.c/d-e_f', 'x..y/z'])('accepts %s', (key) => {
    expect(isStorageKey(key)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['absolute', '/etc/passwd'],
    ['parent segment', 'portfolios/../secrets.csv'],
    ['leading parent', '../x.csv'],
    ['current segment', 'portfolios/./x.csv'],
    ['empty segment', 'portfolios//x.csv'],
    ['trailing slash', 'portfolios/'],
    ['hidden file', 'portfolios/.x.csv.tmp'],
    ['backslash', 'portfolios\\..\\x.csv'],
    ['NUL', 'portfolios/x\u0000.csv'],
    ['space', 'portfolios/a b.csv'],
    ['percent', 'portfolios/%2e%2e/x.csv'],
    ['too long', 'a/'.repeat(600) + 'b'],
  ])('refuses a key that is %s', (_what, key) => {
    expect(isStorageKey(key)).toBe(false);
    expect(() => assertStorageKey(key)).toThrow(InvalidStorageKeyError);
  });
});
