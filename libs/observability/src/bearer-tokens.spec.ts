import { BearerTokens, bearerOf } from './bearer-tokens';

describe('BearerTokens', () => {
  const tokens = new BearerTokens(['metrics-token', 'operator-token', '']);

  it('accepts any configured token and nothing else', () => {
    expect(tokens.accepts('Bearer metrics-token')).toBe(true);
    expect(tokens.accepts('bearer operator-token')).toBe(true);
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic metrics-token', 'Bearer metrics-token2', 'Bearer metrics', 'metrics-token']) {
      expect(tokens.accepts(header)).toBe(false);
    }
  });

  it('never accepts an empty token, even when one is configured empty', () => {
    expect(new BearerTokens(['']).accepts('Bearer ')).toBe(false);
    expect(bearerOf('Bearer  a-token ')).toBe('a-token');
  });
});
