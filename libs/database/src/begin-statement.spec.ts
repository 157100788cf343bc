import { beginStatement } from './begin-statement';

describe('beginStatement', () => {
  it('is BEGIN alone without settings', () => {
    expect(beginStatement()).toBe('BEGIN');
    expect(beginStatement({})).toBe('BEGIN');
  });

  it('sets each setting for the transaction only, in the same query', () => {
    expect(beginStatement({ enable_seqscan: 'off', 'pg_trgm.similarity_threshold': '0.4' })).toBe(
      "BEGIN; SET LOCAL enable_seqscan = 'off'; SET LOCAL pg_trgm.similarity_threshold = '0.4'",
    );
  });

  it('refuses a name or value that could carry another statement', () => {
    expect(() => beginStatement({ "enable_seqscan = 'off'; DROP TABLE debts; --": 'x' })).toThrow('not a setting');
    expect(() => beginStatement({ enable_seqscan: "off'; DROP TABLE debts; --" })).toThrow('not a setting');
    expect(() => beginStatement({ work_mem: '' })).toThrow('not a setting');
  });
});
