import { createTenant, OperatorClient, Stack, Tenant } from '@dc/testing';
import IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';
import request from 'supertest';

/**
 * Idempotency-Key records are bounded per API key (docs/adr/0009, "a quota per API key"): past its quota
 * of records or bytes, a key's own oldest records are dropped, never another key's. Driven through
 * the policy probe (test entry point), whose `data.processed` counts its real runs per gateway.
 */
describe('Idempotency-Key quota per API key', () => {
  const MAX_RECORDS = 5;
  let stack: Stack;
  let tenant: Tenant;
  let operator: OperatorClient;
  let redis: IORedis;

  beforeAll(async () => {
    stack = await Stack.start({ gatewayReplicas: 2, env: { IDEMPOTENCY_MAX_RECORDS_PER_KEY: String(MAX_RECORDS) } });
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator);
    redis = new IORedis('redis://127.0.0.1:6379', { lazyConnect: true });
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  const newKey = async (): Promise<{ id: string; key: string }> =>
    (await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { scopes: ['read', 'write'] })).data;
  const probe = (url: string, apiKey: string, idempotencyKey: string, body: object = {}) =>
    request(url)
      .post(`/public/v1/_test/policy-probe/${tenant.portfolioIds[0]}`)
      .set('Authorization', `Bearer ${apiKey}`)
      .set('Content-Type', 'application/json')
      .set('Idempotency-Key', idempotencyKey)
      .send(JSON.stringify(body));
  /** What Redis holds for an API key: its records' fields, oldest first, and their byte tally. */
  const stored = async (apiKeyId: string) => {
    const tag = `${stack.env.REDIS_KEY_PREFIX}:idem:{${apiKeyId}}`;
    const fields = await redis.zrange(`${tag}:order`, 0, -1);
    const sizes = await Promise.all(fields.map(async (f) => (await redis.hstrlen(`${tag}:records`, f)) + Buffer.byteLength(f)));
    return { fields, bytes: Number(await redis.hget(`${tag}:records`, 'bytes')), sum: sizes.reduce((a, b) => a + b, 0) };
  };
  const expectReplay = (res: request.Response, first: request.Response) => {
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(res.body).toEqual(first.body);
  };
  const expectRunAgain = (res: request.Response, processedBefore: number) => {
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body).toEqual({ data: { processed: processedBefore + 1, portfolioId: tenant.portfolioIds[0] } });
  };

  it('a flood of fresh keys past the record quota drops only that API key\'s oldest records', async () => {
    const url = stack.gateways[0].publicUrl; // one process: `processed` counts every run
    const [flooder, other] = [await newKey(), await newKey()];
    const theirs = await probe(url, other.key, 'theirs-1', { n: 0 });
    expect(theirs.status).toBe(200);

    const mine: request.Response[] = [];
    for (let i = 1; i <= MAX_RECORDS + 3; i += 1) {
      const res = await probe(url, flooder.key, `mine-${i}`, { n: i });
      expect(res.status).toBe(200);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      mine.push(res);
    }
    // Redis holds the newest five of the flooder's records, and the other key's one.
    expect((await stored(flooder.id)).fields).toEqual(['k:mine-4', 'k:mine-5', 'k:mine-6', 'k:mine-7', 'k:mine-8']);
    expect((await stored(other.id)).fields).toEqual(['k:theirs-1']);

    // The newest five replay (newest first: a replay stores nothing, so drops nothing).
    for (let i = MAX_RECORDS + 3; i >= 4; i -= 1) expectReplay(await probe(url, flooder.key, `mine-${i}`, { n: i }), mine[i - 1]);
    // The other API key's record was never touched.
    expectReplay(await probe(url, other.key, 'theirs-1', { n: 0 }), theirs);
    // The oldest is gone: the same request with the same key runs again (and is stored anew).
    const again = await probe(url, flooder.key, 'mine-1', { n: 1 });
    expectRunAgain(again, mine[mine.length - 1].body.data.processed);
    expectReplay(await probe(url, flooder.key, 'mine-1', { n: 1 }), again);
    expect((await stored(flooder.id)).fields).toEqual(['k:mine-5', 'k:mine-6', 'k:mine-7', 'k:mine-8', 'k:mine-1']);
  });

  it('holds across gateways: 24 concurrent fresh keys over two replicas leave exactly the quota, with an exact byte tally', async () => {
    const flooder = await newKey();
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => probe(stack.gateways[i % 2].publicUrl, flooder.key, `burst-${i}`, { n: i })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(24).fill(200));
    const { fields, bytes, sum } = await stored(flooder.id);
    expect(fields).toHaveLength(MAX_RECORDS);
    expect(bytes).toBe(sum);
  });

  it('the byte quota drops the oldest records too, and never another key\'s', async () => {
    // Records of ~1 KB (a 1,000-character random Location replayed with the answer); 3,500 bytes hold three.
    const gateway = await stack.startGateway({ PORT: '0', IDEMPOTENCY_MAX_RECORDS_PER_KEY: '1000', IDEMPOTENCY_MAX_BYTES_PER_KEY: '3500' });
    const url = gateway.publicUrl;
    const location = () => `/x/${randomBytes(750).toString('base64url')}`;
    const [flooder, other] = [await newKey(), await newKey()];
    const theirsBody = { location: location() };
    const theirs = await probe(url, other.key, 'theirs-1', theirsBody);
    expect(theirs.status).toBe(200);

    const bodies = Array.from({ length: 6 }, () => ({ location: location() }));
    const mine: request.Response[] = [];
    for (const [i, body] of bodies.entries()) {
      const res = await probe(url, flooder.key, `big-${i + 1}`, body);
      expect(res.status).toBe(200);
      expect(res.headers.location).toBe(body.location);
      mine.push(res);
    }
    const held = await stored(flooder.id);
    expect(held.fields).toEqual(['k:big-4', 'k:big-5', 'k:big-6']);
    expect(held.bytes).toBe(held.sum);
    expect(held.bytes).toBeLessThanOrEqual(3500);

    for (const i of [6, 5, 4]) {
      const res = await probe(url, flooder.key, `big-${i}`, bodies[i - 1]);
      expectReplay(res, mine[i - 1]);
      expect(res.headers.location).toBe(bodies[i - 1].location);
    }
    expectReplay(await probe(url, other.key, 'theirs-1', theirsBody), theirs);
    expectRunAgain(await probe(url, flooder.key, 'big-1', bodies[0]), mine[5].body.data.processed);
  });
});
