import { createTenant, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';
import request from 'supertest';

jest.setTimeout(90_000);

/** The gateway policies (rate cost, Idempotency-Key) on the real debtor batch route. */
describe('debtor batch: rate cost and Idempotency-Key', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let redis: IORedis;

  beforeAll(async () => {
    stack = await Stack.start();
    operator = new OperatorClient(stack.operatorUrl);
    redis = new IORedis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  const batch = (n: number, prefix = `d${Date.now()}`) => ({
    debtors: Array.from({ length: n }, (_, i) => ({
      externalId: `${prefix}-${i}`,
      identityFirstName: 'Ana',
      identityDocumentType: 'national_id',
      identityDocumentNumber: `DOC-${prefix}-${i}`,
    })),
  });
  const post = (t: Tenant, body: unknown, idempotencyKey?: string, portfolio = 0) => {
    const req = request(stack.publicUrl).post(`/public/v1/portfolios/${t.portfolioIds[portfolio]}/debtors`).set('Authorization', `Bearer ${t.key}`);
    if (idempotencyKey) void req.set('Idempotency-Key', idempotencyKey);
    return req.send(body as object);
  };
  const countDebtors = (portfolioId: string) =>
    withDatabase(stack.databaseUrl, async (c) => Number((await c.query('SELECT count(*) FROM debtors WHERE portfolio_id = $1', [portfolioId])).rows[0].count));

  async function sameWindow(needSeconds: number): Promise<void> {
    const [seconds] = await redis.time();
    const into = Number(seconds) % 60;
    if (into > 60 - needSeconds) await new Promise((r) => setTimeout(r, (61 - into) * 1000));
  }

  it.each([
    [20, 1],
    [50, 1],
    [51, 2],
    [500, 10],
  ])('%i debtors cost %i units, reflected in X-RateLimit-Remaining of the batch response', async (n, cost) => {
    const tenant = await createTenant(operator);
    await sameWindow(5);
    const res = await post(tenant, batch(n));
    expect(res.status).toBe(200);
    expect(res.body.data.summary).toEqual({ created: n, received: n, rejected: 0, updated: 0 });
    expect(res.headers['x-ratelimit-remaining']).toBe(String(300 - cost));
  });

  it('a batch over 500 items is 413 and charged as a full batch, not by its length', async () => {
    const tenant = await createTenant(operator);
    await sameWindow(5);
    const huge = { debtors: Array.from({ length: 16_000 }, () => ({})) }; // would cost 320 units by length
    const res = await post(tenant, huge);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    expect(res.headers['x-ratelimit-remaining']).toBe('290');
  });

  it('a batch that crosses the limit is charged and not processed', async () => {
    const tenant = await createTenant(operator, { portfolios: 1 });
    await sameWindow(20);
    const me = (await request(stack.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${tenant.key}`)).body.data.apiKey.id;
    const [now] = await redis.time();
    const window = Number(now) - (Number(now) % 60);
    for (let i = 0; i < 295; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, 295 - i) }, () => request(stack.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${tenant.key}`)),
      );
    }
    const crossing = await post(tenant, batch(500, 'crossing')); // 296 + 10 > 300
    expect(crossing.status).toBe(429);
    expect(crossing.body.error.code).toBe('rate_limited');
    expect(crossing.headers['x-ratelimit-remaining']).toBe('0');
    // The key's window and its units (a hash, docs/adr/0033): charged.
    expect(await redis.hgetall(`${stack.env.REDIS_KEY_PREFIX}:rl:${me}`)).toEqual({ w: String(window), n: '306' });
    expect(await countDebtors(tenant.portfolioIds[0])).toBe(0); // not processed
  });

  it('replays a batch with the same Idempotency-Key without reprocessing; another portfolio is 409', async () => {
    const tenant = await createTenant(operator, { portfolios: 2 });
    const body = batch(3, `idem${Date.now()}`);
    const first = await post(tenant, body, 'batch-key-1');
    expect(first.status).toBe(200);
    expect(first.body.data.summary.created).toBe(3);
    const replay = await post(tenant, body, 'batch-key-1');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body); // "created", not "updated": the stored response
    expect(await countDebtors(tenant.portfolioIds[0])).toBe(3);
    const elsewhere = await post(tenant, body, 'batch-key-1', 1);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error.code).toBe('idempotency_conflict');
    expect(await countDebtors(tenant.portfolioIds[1])).toBe(0);
  });

  it('a schema error is not stored: the same key works with a corrected body', async () => {
    const tenant = await createTenant(operator);
    const bad = await post(tenant, { debtors: [] }, 'batch-key-2');
    expect(bad.status).toBe(400);
    const good = await post(tenant, batch(1, `fix${Date.now()}`), 'batch-key-2');
    expect(good.status).toBe(200);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a nearly 5 MB batch that does not compress below a NATS message is still processed (claim check)', async () => {
    const tenant = await createTenant(operator);
    const body = batch(500, `big${Date.now()}`) as { debtors: Record<string, unknown>[] };
    body.debtors.forEach((d, i) => {
      d.debts = Array.from({ length: 20 }, (_, j) => ({
        externalId: `big-${i}-${j}`,
        totalAmount: 100,
        currency: 'EUR',
        description: randomBytes(300).toString('base64'), // 400 incompressible characters
      }));
    });
    const size = Buffer.byteLength(JSON.stringify(body));
    expect(size).toBeGreaterThan(4.5 * 1024 * 1024);
    expect(size).toBeLessThan(5 * 1024 * 1024);
    const res = await request(stack.publicUrl)
      .post(`/public/v1/portfolios/${tenant.portfolioIds[0]}/debtors`)
      .set('Authorization', `Bearer ${tenant.key}`)
      .send(body);
    expect(res.status).toBe(200);
    expect(res.body.data.summary).toEqual({ created: 500, received: 500, rejected: 0, updated: 0 });
    const debts = await withDatabase(stack.databaseUrl, async (c) => Number((await c.query('SELECT count(*) FROM debts WHERE portfolio_id = $1', [tenant.portfolioIds[0]])).rows[0].count));
    expect(debts).toBe(10_000);
  });
});
