import type { VerifiedKey } from '@dc/contracts';
import { KeyCache } from './key-cache';

const key = (organizationId: string): VerifiedKey => ({
  apiKeyId: 'key_1',
  organizationId,
  organizationActive: true,
  scopes: ['read'],
  portfolioIds: [],
  expiresAt: null,
  identity: {
    apiKey: { id: 'key_1', name: 'k', keyPrefix: 'svc_test_abcd', scopes: ['read'], expiresAt: null },
    organization: { id: organizationId, name: 'O', status: 'active' },
    portfolioCount: 0,
  },
});

describe('KeyCache', () => {
  it('forgets entries after the ttl', () => {
    let now = 0;
    const cache = new KeyCache(60_000, { verified: 10, unknown: 10 }, () => now);
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

  it('an answer looked up before an invalidation is not cached after it (a lookup in flight during an operator change)', () => {
    const cache = new KeyCache(1_000);
    const since = cache.generation;
    cache.dropOrganization('org_a'); // the broadcast arrives while the lookup is in flight
    cache.set('a', key('org_a'), since);
    cache.set('u', null, since);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('u')).toBeUndefined();
    cache.set('a', key('org_a'), cache.generation);
    expect(cache.get('a')?.organizationId).toBe('org_a');
  });

  it('evicts the least recently used verified key when full', () => {
    const cache = new KeyCache(1_000, { verified: 2, unknown: 2 });
    cache.set('a', key('org_a'));
    cache.set('b', key('org_b'));
    expect(cache.get('a')?.organizationId).toBe('org_a'); // now b is the least recently used
    cache.set('c', key('org_c'));
    expect(cache.size).toEqual({ verified: 2, unknown: 0 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.organizationId).toBe('org_a');
  });

  it('keeps unknown keys apart: no number of them evicts a verified key', () => {
    const cache = new KeyCache(1_000, { verified: 2, unknown: 3 });
    cache.set('valid', key('org_a'));
    for (let i = 0; i < 10_000; i++) cache.set(`bogus-${i}`, null);
    expect(cache.size).toEqual({ verified: 1, unknown: 3 });
    expect(cache.get('valid')?.organizationId).toBe('org_a');
    expect(cache.get('bogus-9999')).toBeNull();
    expect(cache.get('bogus-0')).toBeUndefined();
  });

  it('a key verified after being unknown (or the reverse) is in one map only', () => {
    const cache = new KeyCache(1_000);
    cache.set('h', null);
    cache.set('h', key('org_a'));
    expect(cache.get('h')?.organizationId).toBe('org_a');
    cache.set('h', null);
    expect(cache.get('h')).toBeNull();
    expect(cache.size).toEqual({ verified: 0, unknown: 1 });
  });
});
