import { createTenant, eventually, OperatorClient, Stack, Tenant } from '@dc/testing';
import request from 'supertest';

describe('gateway ↔ api-core over NATS (queue group "api-core")', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await Stack.start({ apiCoreReplicas: 2 });
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
  });
  afterAll(() => stack?.stop());

  it('two api-core replicas share the requests and each request is handled exactly once', async () => {
    const requestIds: string[] = [];
    for (let batch = 0; batch < 4; batch += 1) {
      const responses = await Promise.all(
        Array.from({ length: 15 }, () => request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${tenant.key}`)),
      );
      for (const res of responses) {
        expect(res.status).toBe(200);
        requestIds.push(res.headers['x-request-id']);
      }
    }
    const handledBy = (i: number) =>
      stack.apiCores[i].logs.filter((l) => l.msg === 'handled' && l.pattern === 'portfolios.list').map((l) => String(l.requestId));
    // Log lines arrive through the processes' stdout pipes, a little after the responses.
    await eventually(() => expect([...handledBy(0), ...handledBy(1)].sort()).toEqual([...requestIds].sort()));
    expect(handledBy(0).length).toBeGreaterThan(0);
    expect(handledBy(1).length).toBeGreaterThan(0);
    expect(new Set(requestIds).size).toBe(60);
  });

  it('by default a client\'s X-Request-Id is not taken: the gateway names the request, and that id travels to api-core', async () => {
    const res = await request(stack.publicUrl)
      .get('/public/v1/portfolios')
      .set('Authorization', `Bearer ${tenant.key}`)
      .set('X-Request-Id', 'client-trace-0000');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    await eventually(() => {
      const handled = stack.apiCores.flatMap((c) => c.logs).filter((l) => l.requestId === res.headers['x-request-id']);
      expect(handled.map((l) => l.msg)).toContain('handled');
    });
    expect(stack.apiCores.flatMap((c) => c.logs).some((l) => l.requestId === 'client-trace-0000')).toBe(false);
  });

  it('with TRUST_REQUEST_ID=true (behind an edge that sets it) the request id travels to api-core and is echoed back', async () => {
    const trusting = await stack.startGateway({ PORT: '0', TRUST_REQUEST_ID: 'true' });
    const res = await request(trusting.publicUrl)
      .get('/public/v1/portfolios')
      .set('Authorization', `Bearer ${tenant.key}`)
      .set('X-Request-Id', 'client-trace-0001');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('client-trace-0001');
    await eventually(() => {
      const handled = stack.apiCores.flatMap((c) => c.logs).filter((l) => l.requestId === 'client-trace-0001');
      expect(handled.map((l) => l.msg)).toContain('handled');
    });
  });

  it('with every api-core stopped, answers 503 service_unavailable promptly instead of hanging', async () => {
    await Promise.all(stack.apiCores.map((c) => c.stop('SIGTERM')));
    const started = Date.now();
    // A portfolio read needs api-core (the key itself is still cached).
    const res = await request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${tenant.key}`);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(res.status).toBe(503);
    // Every 503 tells the client when to retry (fault suite, docs/adr/0028).
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({
      error: { code: 'service_unavailable', message: expect.stringContaining('Retry later'), requestId: res.headers['x-request-id'] },
    });
    // GET /me is answered from the key cache: no round trip, so no api-core needed.
    const me = await request(stack.publicUrl).get('/public/v1/me').set('Authorization', `Bearer ${tenant.key}`);
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({
      apiKey: { id: expect.stringMatching(/^key_/), name: 'rw', keyPrefix: tenant.key.slice(0, 13), scopes: ['read', 'write'], expiresAt: null },
      organization: { id: tenant.organizationId, name: expect.any(String), status: 'active' },
      portfolioCount: tenant.portfolioIds.length,
    });

    await stack.startApiCore();
    const again = await request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${tenant.key}`);
    expect(again.status).toBe(200);
  });

  it('api-core exits 0 on SIGTERM (graceful shutdown)', async () => {
    const core = await stack.startApiCore();
    expect(await core.stop('SIGTERM')).toBe(0);
  });
});
