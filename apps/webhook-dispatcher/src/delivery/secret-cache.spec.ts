import { SecretCache } from './secret-cache';

describe('SecretCache', () => {
  it('decrypts a webhook secret once within the TTL, again after it', () => {
    let t = 0;
    const open = jest.fn((c: string) => `plain:${c}`);
    const cache = new SecretCache(open, { ttlMs: 60_000, maxEntries: 10, now: () => t });
    expect(cache.secretOf('whk_1', 'c1')).toBe('plain:c1');
    expect(cache.secretOf('whk_1', 'c1')).toBe('plain:c1');
    expect(open).toHaveBeenCalledTimes(1);
    t += 60_001;
    cache.secretOf('whk_1', 'c1');
    expect(open).toHaveBeenCalledTimes(2);
  });

  it('a new ciphertext for the same webhook (a rotated secret) is decrypted, never served stale', () => {
    const cache = new SecretCache((c) => `plain:${c}`, { ttlMs: 60_000, maxEntries: 10 });
    cache.secretOf('whk_1', 'old');
    expect(cache.secretOf('whk_1', 'new')).toBe('plain:new');
  });

  it('holds at most maxEntries, evicting the oldest', () => {
    const open = jest.fn((c: string) => c);
    const cache = new SecretCache(open, { ttlMs: 60_000, maxEntries: 2 });
    cache.secretOf('a', '1');
    cache.secretOf('b', '2');
    cache.secretOf('c', '3');
    expect(cache.size).toBe(2);
    cache.secretOf('b', '2');
    expect(open).toHaveBeenCalledTimes(3);
    cache.secretOf('a', '1');
    expect(open).toHaveBeenCalledTimes(4);
  });

  it('a secret that cannot be opened is not cached and the error reaches the caller', () => {
    const cache = new SecretCache(() => {
      throw new Error('unknown key id');
    }, { ttlMs: 60_000, maxEntries: 2 });
    expect(() => cache.secretOf('a', 'x')).toThrow('unknown key id');
    expect(cache.size).toBe(0);
  });
});
