import { createTenant, OperatorClient, Stack, Tenant } from '@dc/testing';
import request from 'supertest';

/**
 * Idempotency-Key on the policy probe (the test entry point only), a write route with the same
 * decorators as the debtor batch. `data.processed` counts how often the probe really ran.
 */
describe('Idempotency-Key (spec: batch rule 12)', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await Stack.start({ gatewayReplicas: 2, env: { IDEMPOTENCY_WAIT_MS: '1500' } });
    tenant = await createTenant(new OperatorClient(stack.operatorUrl), { portfolios: 2 });
  });
  afterAll(() => stack?.stop());

  const probe = (body: object | string, key?: string, options: { portfolio?: number; apiKey?: string; url?: string } = {}) => {
    const req = request(options.url ?? stack.publicUrl)
      .post(`/public/v1/_test/policy-probe/${tenant.portfolioIds[options.portfolio ?? 0]}`)
      .set('Authorization', `Bearer ${options.apiKey ?? tenant.key}`)
      .set('Content-Type', 'application/json');
    if (key !== undefined) void req.set('Idempotency-Key', key);
    return req.send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const uniqueKey = () => `key-${Date.now()}-${Math.random()}`;

  it('replays the same request with the same key: same status and body, Idempotent-Replayed, not reprocessed', async () => {
    const key = uniqueKey();
    const first = await probe({ a: 1, b: [1, 2] }, key);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await probe({ a: 1, b: [1, 2] }, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const next = await probe({ a: 1 }, uniqueKey());
    expect(next.body.data.processed).toBe(first.body.data.processed + 1);
  });

  it('a replay carries the response\'s own headers (Location), with the current request\'s id', async () => {
    const key = uniqueKey();
    const first = await probe({ location: '/public/v1/things/1' }, key);
    expect(first.headers.location).toBe('/public/v1/things/1');
    const again = await probe({ location: '/public/v1/things/1' }, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe('/public/v1/things/1');
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it('whitespace and key order alone are the same request; array order is not', async () => {
    const key = uniqueKey();
    const first = await probe('{"a":1,"b":[1,2]}', key);
    const same = await probe('{ "b": [1, 2],\n  "a": 1 }', key);
    expect(same.status).toBe(200);
    expect(same.headers['idempotent-replayed']).toBe('true');
    expect(same.body).toEqual(first.body);
    const reordered = await probe('{"a":1,"b":[2,1]}', key);
    expect(reordered.status).toBe(409);
  });

  it('the same key with a different body, or another portfolio, is 409 idempotency_conflict', async () => {
    const key = uniqueKey();
    expect((await probe({ a: 1 }, key)).status).toBe(200);
    for (const res of [await probe({ a: 2 }, key), await probe({ a: 1 }, key, { portfolio: 1 })]) {
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        error: { code: 'idempotency_conflict', message: expect.stringContaining('different request'), requestId: res.headers['x-request-id'] },
      });
    }
  });

  it('keys are scoped to the API key', async () => {
    const key = uniqueKey();
    const mine = await probe({ a: 1 }, key);
    const otherKey = (await new OperatorClient(stack.operatorUrl).expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { scopes: ['write'] })).data.key;
    const theirs = await probe({ a: 1 }, key, { apiKey: otherKey });
    expect(theirs.status).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.processed).toBeGreaterThan(mine.body.data.processed);
  });

  it('accepts 255 characters and refuses 256 with 400 validation_error before any processing', async () => {
    expect((await probe({ a: 1 }, 'k'.repeat(255))).status).toBe(200);
    const before = (await probe({ a: 1 })).body.data.processed;
    const res = await probe({ a: 1 }, 'k'.repeat(256));
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: 'Idempotency-Key must be 1 to 255 characters.',
      requestId: res.headers['x-request-id'],
      issues: [{ message: 'Idempotency-Key must be 1 to 255 characters', path: 'Idempotency-Key' }],
    });
    expect((await probe({ a: 1 })).body.data.processed).toBe(before + 1);
  });

  it('an empty header means no record and no error', async () => {
    const first = await probe({ a: 1 }, '');
    const second = await probe({ a: 1 }, '');
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.data.processed).toBe(first.body.data.processed + 1);
  });

  it('only successes are stored: after an error the same key works with a corrected body', async () => {
    const key = uniqueKey();
    const failed = await probe({ fail: true }, key);
    expect(failed.status).toBe(400);
    const corrected = await probe({ fail: false }, key);
    expect(corrected.status).toBe(200);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
  });

  it('parallel duplicates are processed once; the others wait and replay', async () => {
    const key = uniqueKey();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => probe({ delayMs: 300 }, key, { url: stack.gateways[i % 2].publicUrl })),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
  });

  it('a waiting duplicate is processed itself when the first fails (nothing was stored)', async () => {
    const key = uniqueKey();
    const [first, second] = await Promise.all([probe({ fail: true, delayMs: 300 }, key), probe({ fail: true, delayMs: 300 }, key)]);
    // Both ran and failed on their own: neither is a conflict, neither a replay.
    expect([first.status, second.status]).toEqual([400, 400]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a wait that runs out (IDEMPOTENCY_WAIT_MS) is 409 idempotency_conflict', async () => {
    const key = uniqueKey();
    const slow = probe({ delayMs: 2_500 }, key).then((r) => r); // supertest sends on then()
    await new Promise((r) => setTimeout(r, 500)); // the first claims the key; the second's wait (1.5 s) ends before it finishes
    const impatient = await probe({ delayMs: 2_500 }, key);
    expect(impatient.status).toBe(409);
    expect(impatient.body.error.message).toMatch(/still being processed/);
    expect((await slow).status).toBe(200);
  });

  it('a gateway crash mid-request does not lock the key beyond the lease', async () => {
    const key = uniqueKey();
    // The claim's lease is set by the gateway that takes it.
    const doomed = await stack.startGateway({
      IDEMPOTENCY_LEASE_MS: '1000',
      NATS_REQUEST_TIMEOUT_MS: '500',
      // The lease must outlast the longest server-side run: 500 + 200 + 200 ms (docs/adr/0014).
      DATABASE_CONNECT_TIMEOUT_MS: '200',
      DATABASE_STATEMENT_TIMEOUT_MS: '200',
    });
    const inFlight = probe({ delayMs: 4_000 }, key, { url: doomed.publicUrl }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    await doomed.process.stop('SIGKILL');
    await inFlight;
    await new Promise((r) => setTimeout(r, 1_100)); // the dead gateway's lease: 1000 ms
    const retried = await probe({ delayMs: 4_000 }, key);
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });
});
