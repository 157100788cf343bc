import { generateApiKey } from '@dc/contracts';
import { createTenant, OperatorClient, rawPost, Stack, Tenant, withDatabase } from '@dc/testing';
import http from 'node:http';
import request from 'supertest';

/** Unauthenticated floods stay cheap (docs/adr/0016). */
describe('unauthenticated floods', () => {
  const LIMIT = 5;
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ env: { AUTH_FAILURES_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(() => stack?.stop());

  const me = (url: string, key: string) => request(url).get('/public/v1/me').set('Authorization', `Bearer ${key}`);

  /** The limit counts per clock minute: start a sequence only where it cannot straddle two windows. */
  async function freshWindow(): Promise<void> {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
  }

  it('failed authentications per client address are limited across gateways: 429 in the envelope with Retry-After', async () => {
    await freshWindow();
    const second = await stack.startGateway();
    for (let i = 0; i < LIMIT; i++) {
      const url = i % 2 ? second.publicUrl : stack.publicUrl;
      const res = await me(url, generateApiKey('live'));
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    for (const url of [stack.publicUrl, second.publicUrl]) {
      const res = await me(url, generateApiKey('live'));
      expect(res.status).toBe(429);
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.body).toEqual({
        error: {
          code: 'rate_limited',
          message: `Too many failed authentications from this address (limit ${LIMIT} per minute). Retry after ${retryAfter} s with a valid API key.`,
          requestId: res.headers['x-request-id'],
        },
      });
    }
    // Missing and malformed keys count too.
    expect((await request(stack.publicUrl).get('/public/v1/me')).status).toBe(429);
    expect((await me(stack.publicUrl, 'svc_live_nope')).status).toBe(429);
  });

  it('an IPv6 client is counted by its /64 (rotating addresses inside it does not escape), an IPv4-mapped address as its IPv4', async () => {
    await freshWindow();
    // Behind a proxy on loopback: X-Forwarded-For names the client (TRUST_PROXY).
    const proxied = await stack.startGateway({ PORT: '0', TRUST_PROXY: '127.0.0.1' });
    const from = (address: string) => me(proxied.publicUrl, generateApiKey('live')).set('X-Forwarded-For', address);
    for (let i = 1; i <= LIMIT; i++) expect((await from(`2001:db8:34:7:${i.toString(16)}::1`)).status).toBe(401);
    const rotated = await from('2001:db8:34:7:ffff:ffff:ffff:fffe');
    expect(rotated.status).toBe(429);
    expect(rotated.body.error).toEqual({
      code: 'rate_limited',
      message: `Too many failed authentications from this address (limit ${LIMIT} per minute). Retry after ${rotated.headers['retry-after']} s with a valid API key.`,
      requestId: rotated.headers['x-request-id'],
    });
    // The next /64 is another client.
    expect((await from('2001:db8:34:8::1')).status).toBe(401);
    // One IPv4 client, whether the listener sees it mapped into IPv6 or not.
    for (let i = 0; i < LIMIT; i++) expect((await from(i % 2 ? '198.51.100.7' : '::ffff:198.51.100.7')).status).toBe(401);
    expect((await from('198.51.100.7')).status).toBe(429);
    expect((await from('::ffff:198.51.100.7')).status).toBe(429);
    expect((await from('198.51.100.8')).status).toBe(401);
  });

  it('a request without a valid key or operator token is answered before its body is sent or parsed', async () => {
    const body = JSON.stringify({ externalId: 'x', amount: 1 });
    const res = await rawPost(stack.publicUrl, '/public/v1/payments', { authorization: 'Bearer svc_live_nope' }, body, { waitMs: 2_000 });
    expect([401, 429]).toContain(res.status);
    expect(res.bodySent).toBe(false);
    const operator = await rawPost(stack.operatorUrl, '/operator/v1/organizations', { authorization: 'Bearer wrong' }, body, { waitMs: 2_000 });
    expect(operator.status).toBe(401);
    expect(operator.body.error.code).toBe('unauthorized');
    expect(operator.bodySent).toBe(false);
  });
});

describe('the key cache under a flood of made-up keys', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await Stack.start({ env: { AUTH_FAILURES_PER_MINUTE: '0' } }); // limit off: every made-up key is looked up
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
  });
  afterAll(() => stack?.stop());

  it('10,000 distinct well-formed bogus keys do not evict a valid key, which is still served from the cache', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const get = (key: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get(`${stack.publicUrl}/public/v1/me`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
    expect(await get(tenant.key)).toBe(200);
    // Revoked behind the gateway's back (no operator broadcast): only the cache can still admit it.
    await withDatabase(stack.databaseUrl, (c) => c.query('UPDATE api_keys SET revoked_at = now() WHERE stage = $1', ['live']));

    const statuses = new Map<number, number>();
    const keys = Array.from({ length: 10_000 }, () => generateApiKey('live'));
    for (let i = 0; i < keys.length; i += 16) {
      for (const status of await Promise.all(keys.slice(i, i + 16).map(get))) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    agent.destroy();
    expect(Object.fromEntries(statuses)).toEqual({ 401: 10_000 });
    expect(await get(tenant.key)).toBe(200);
  }, 120_000);
});
