import type { Redis } from 'ioredis';
import { clientOf, FailedAuthLimiter } from './failed-auth-limiter';

describe('clientOf: whose failed authentications an address counts towards', () => {
  it('IPv4: the address itself', () => {
    expect(clientOf('192.0.2.1')).toBe('192.0.2.1');
    expect(clientOf('192.0.2.2')).toBe('192.0.2.2');
  });

  it('IPv6: its /64, however the address is written', () => {
    expect(clientOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:0DB8:0001:0002:0:0:0:7')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2:a:b:1.2.3.4')).toBe('2001:db8:1:2::/64');
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('2001:db8::')).toBe('2001:db8:0:0::/64');
    // The next /64 is another client.
    expect(clientOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('an IPv4-mapped IPv6 address is its IPv4 address', () => {
    expect(clientOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientOf('::FFFF:c000:0201')).toBe('192.0.2.1');
    expect(clientOf('0:0:0:0:0:ffff:192.0.2.1')).toBe('192.0.2.1');
    // Not mapped (the IPv4-compatible and NAT64 forms): an IPv6 /64 like any other.
    expect(clientOf('::192.0.2.1')).toBe('0:0:0:0::/64');
    expect(clientOf('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  it('anything else (not an IP address) is counted as it is', () => {
    expect(clientOf('unknown')).toBe('unknown');
  });

  it('the limiter counts a /64 under one Redis key', async () => {
    const keys: string[] = [];
    const redis = {
      defineCommand: () => undefined,
      dcAuthFailureRecord: async (key: string) => (keys.push(key), [1, 30]),
      dcAuthFailureRead: async (key: string) => (keys.push(key), [0, 30]),
    } as unknown as Redis;
    const limiter = new FailedAuthLimiter(redis, 'dc', 60);
    await limiter.record('2001:db8:1:2::1');
    await limiter.record('2001:db8:1:2:8000::9');
    await limiter.read('2001:db8:1:2::abcd');
    await limiter.record('::ffff:192.0.2.1');
    await limiter.record('192.0.2.1');
    expect(keys).toEqual(['dc:authfail:2001:db8:1:2::/64', 'dc:authfail:2001:db8:1:2::/64', 'dc:authfail:2001:db8:1:2::/64', 'dc:authfail:192.0.2.1', 'dc:authfail:192.0.2.1']);
  });
});
