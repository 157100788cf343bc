import { lsnFromKey, lsnKey, lsnText, lsnValue } from './lsn';

describe('WAL positions', () => {
  it('reads both halves, so a position past 4 GiB compares above one below it', () => {
    expect(lsnValue('0/16B3748')).toBe(0x16b3748n);
    expect(lsnValue('1/0')).toBe(0x100000000n);
    expect(lsnValue('1/0') > lsnValue('0/FFFFFFFF')).toBe(true);
    expect(lsnValue('16/b374d848')).toBe((0x16n << 32n) | 0xb374d848n);
  });

  it('keys sort as text in the order of the positions, and read back', () => {
    const positions = ['0/FFFFFFFF', '1/0', '0/10', 'A/1', '0/9'];
    const byKey = [...positions].sort((a, b) => (lsnKey(a) < lsnKey(b) ? -1 : 1));
    expect(byKey).toEqual(['0/9', '0/10', '0/FFFFFFFF', '1/0', 'A/1']);
    expect(lsnKey('1/0')).toBe('0000000100000000');
    expect(lsnFromKey(lsnKey('16/B374D848'))).toBe(lsnValue('16/B374D848'));
    expect(lsnText(lsnValue('16/B374D848'))).toBe('16/B374D848');
  });

  it('refuses what is not a position', () => {
    expect(() => lsnValue('16B374D848')).toThrow('not a WAL position');
    expect(() => lsnValue('1/123456789')).toThrow('not a WAL position');
    expect(() => lsnFromKey('xyz')).toThrow('not a WAL position key');
  });
});
