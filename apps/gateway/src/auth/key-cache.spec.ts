import type { VerifiedKey } from '@dc/contracts';
import { KeyCache } from './key-cache';

const key = (organizationId: string): VerifiedKey => ({
  apiKeyId: 'key_1',
  organizationId,
  organizationActive: true,
  scopes: ['read'],
  portfolioIds: [],
  expiresAt: null,
});

describe('KeyCache', () => {
  it('forgets entries after the ttl', () => {
    let now = 0;
    const cache = new KeyCache(60_000, 10, () => now);
    cache.set('h', key('org_a'));
    now = 59_999;
    expect(cache.get('h')?.organizationId).toBe('org_a');
    now = 60_000;
    expect(cache.get('h')).toBeUndefined();
  });

  it('caches unknown keys as null', () => {
    const cache = new KeyCache(1_000);
    cache.set('h', null);
    expect(cache.get('h')).toBeNull();
  });

  it('drops every key of an organization', () => {
    const cache = new KeyCache(1_000);
    cache.set('a', key('org_a'));
    cache.set('b', key('org_b'));
    cache.dropOrganization('org_a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.organizationId).toBe('org_b');
  });

  it('evicts the oldest entry when full', () => {
    const cache = new KeyCache(1_000, 2);
    cache.set('a', null);
    cache.set('b', null);
    cache.set('c', null);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
  });
});
