import { createTenant, OPERATOR_TOKEN, OperatorClient, Stack, Tenant } from '@dc/testing';
import IORedis from 'ioredis';
import request from 'supertest';

/** The policy probe (the test entry point only) carries the debtor batch's policies: cost 1 per 50 items. */
const probe = (url: string, key: string, portfolioId: string, items = 0) =>
  request(url)
    .post(`/public/v1/_test/policy-probe/${portfolioId}`)
    .set('Authorization', `Bearer ${key}`)
    .send({ items: Array.from({ length: items }, (_, i) => ({ i })) });

jest.setTimeout(90_000);

describe('rate limiting (spec: Limits) across two gateway replicas sharing Redis', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let redis: IORedis;

  beforeAll(async () => {
    stack = await Stack.start({ gatewayReplicas: 2 });
    operator = new OperatorClient(stack.operatorUrl);
    redis = new IORedis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  /** Waits, if needed, so that the next `needSeconds` stay inside one window (Redis clock). */
  async function freshWindow(needSeconds = 15): Promise<number> {
    const [seconds] = await redis.time();
    const into = Number(seconds) % 60;
    if (into > 60 - needSeconds) await new Promise((r) => setTimeout(r, (61 - into) * 1000));
    const [now] = await redis.time();
    return Number(now) - (Number(now) % 60);
  }

  const newKey = async (tenant: Tenant) =>
    (await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { scopes: ['read', 'write'] })).data;

  it('admits 300 units in a window across both gateways and refuses the next with 429 and Retry-After', async () => {
    const tenant = await createTenant(operator);
    await freshWindow();
    const [a, b] = stack.gateways.map((g) => g.publicUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 300; i += 20) {
      const burst = await Promise.all(
        Array.from({ length: 20 }, (_, j) => request((i + j) % 2 ? a : b).get('/public/v1/me').set('Authorization', `Bearer ${tenant.readKey}`)),
      );
      statuses.push(...burst.map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(300);

    const secondsLeft = async () => Math.max(1, 60 - (Number((await redis.time())[0]) % 60));
    for (const url of [a, b]) {
      // Retry-After is the window's remaining whole seconds when the gateway answered: a second
      // may tick between that and our reading of the clock, so it is bounded by two readings.
      const before = await secondsLeft();
      const refused = await request(url).get('/public/v1/me').set('Authorization', `Bearer ${tenant.readKey}`);
      const after = await secondsLeft();
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        error: { code: 'rate_limited', message: expect.stringContaining('300 units per minute'), requestId: refused.headers['x-request-id'] },
      });
      expect([before, after]).toContain(Number(refused.headers['retry-after']));
      expect(refused.headers['x-ratelimit-limit']).toBe('300');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    }
  });

  it('every response carries the consumption headers, errors included', async () => {
    const tenant = await createTenant(operator);
    const window = await freshWindow(5);
    const ok = await request(stack.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${tenant.readKey}`);
    expect(ok.headers['x-ratelimit-limit']).toBe('300');
    expect(ok.headers['x-ratelimit-remaining']).toBe('299');
    expect(ok.headers['x-ratelimit-reset']).toBe(String(window + 60));
    expect(ok.headers['ratelimit-policy']).toBe('"per-key";q=300;w=60');
    expect(ok.headers['ratelimit']).toMatch(/^"per-key";r=299;t=([1-9]|[1-5]\d|60)$/);

    const notFound = await request(stack.publicUrl).get('/public/v1/portfolios/pf_01JZZZZZZZZZZZZZZZZZZZZZZZ').set('Authorization', `Bearer ${tenant.readKey}`);
    expect(notFound.status).toBe(404);
    expect(notFound.headers['x-ratelimit-remaining']).toBe('298');
    const forbidden = await probe(stack.publicUrl, tenant.readKey, tenant.portfolioIds[0]);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    expect(forbidden.headers['x-ratelimit-remaining']).toBe('297');
  });

  it.each([
    [20, 1],
    [50, 1],
    [51, 2],
    [500, 10],
  ])('a batch of %i items costs %i units, already reflected in X-RateLimit-Remaining', async (items, cost) => {
    const tenant = await createTenant(operator);
    await freshWindow(3);
    const res = await probe(stack.publicUrl, tenant.key, tenant.portfolioIds[0], items);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe(String(300 - cost));
  });

  it('a batch that crosses the limit is charged but not processed', async () => {
    const tenant = await createTenant(operator);
    const key = await newKey(tenant);
    const window = await freshWindow();
    for (let i = 0; i < 29; i += 1) expect((await probe(stack.publicUrl, key.key, tenant.portfolioIds[0], 500)).status).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await request(stack.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${key.key}`)).status).toBe(200);
    const before = await probe(stack.publicUrl, tenant.key, tenant.portfolioIds[0]);
    const processedBefore = before.body.data.processed;

    const crossing = await probe(stack.publicUrl, key.key, tenant.portfolioIds[0], 500);
    expect(crossing.status).toBe(429);
    expect(crossing.body.error.code).toBe('rate_limited');
    expect(crossing.headers['x-ratelimit-remaining']).toBe('0');
    // One key per API key (Redis Cluster: named in KEYS, docs/adr/0033): the window and its units.
    expect(await redis.hgetall(`${stack.env.REDIS_KEY_PREFIX}:rl:${key.id}`)).toEqual({ w: String(window), n: '305' });

    const after = await probe(stack.publicUrl, tenant.key, tenant.portfolioIds[0]);
    expect(after.body.data.processed).toBe(processedBefore + 1);
  });

  it('keys expire with their window (no unbounded growth)', async () => {
    const tenant = await createTenant(operator);
    const key = await newKey(tenant);
    const window = await freshWindow(3);
    await request(stack.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${key.key}`);
    expect(await redis.hget(`${stack.env.REDIS_KEY_PREFIX}:rl:${key.id}`, 'w')).toBe(String(window));
    const ttl = await redis.ttl(`${stack.env.REDIS_KEY_PREFIX}:rl:${key.id}`);
    expect(ttl).toBeGreaterThan(60);
    expect(ttl).toBeLessThanOrEqual(70);
  });

  it('with Redis unreachable, fails open: requests are admitted without consumption headers, and it shows in /metrics', async () => {
    const tenant = await createTenant(operator);
    const broken = await stack.startGateway({ REDIS_URL: 'redis://127.0.0.1:6390' });
    const res = await request(broken.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${tenant.readKey}`);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    // The warning names the request, so an operator can match it to what the client saw. (The line
    // comes through the process's stdout, which may deliver it after the HTTP answer.)
    const warning = await broken.process.waitForLog((l) => l.msg === 'rate limit store unreachable: admitting request', 5_000);
    expect(warning.requestId).toBe(res.headers['x-request-id']);
    const metrics = await request(broken.operatorUrl).get('/metrics').set('Authorization', `Bearer ${OPERATOR_TOKEN}`);
    expect(metrics.text).toMatch(/^gateway_rate_limit_store_errors_total [1-9]\d*$/m);
    // An Idempotency-Key cannot be honoured without Redis: refused rather than risk a double write.
    const idem = await probe(broken.publicUrl, tenant.key, tenant.portfolioIds[0]).set('Idempotency-Key', 'k-1');
    expect(idem.status).toBe(503);
    expect(idem.body.error.code).toBe('service_unavailable');
    await broken.process.stop();
  });

  it('with RATE_LIMIT_FAIL_OPEN=false and Redis unreachable, refuses with 503', async () => {
    const tenant = await createTenant(operator);
    const strict = await stack.startGateway({ REDIS_URL: 'redis://127.0.0.1:6390', RATE_LIMIT_FAIL_OPEN: 'false' });
    const res = await request(strict.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${tenant.readKey}`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    await strict.process.stop();
  });
});
