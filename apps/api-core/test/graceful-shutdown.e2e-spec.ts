import { createTenant, holdAdvisoryLock, OperatorClient, Stack, Tenant, untilWaiting, withDatabase } from '@dc/testing';
import request from 'supertest';

/**
 * Graceful shutdown finishes in-flight work. A debtor batch that api-core has
 * taken is held on an advisory lock (the batch's own per-debtor lock, taken here first) while
 * api-core receives SIGTERM; once the lock is released the batch must still commit and answer 200
 * before the process exits 0 — well after Nest's fixed 2-second grace period.
 */
describe('api-core graceful shutdown', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    // The batch waits on the lock for over 3 s: statement and lock timeouts allow it.
    stack = await Stack.start({
      env: { SHUTDOWN_GRACE_MS: '10000', NATS_REQUEST_TIMEOUT_MS: '15000', DATABASE_STATEMENT_TIMEOUT_MS: '12000', DATABASE_LOCK_TIMEOUT_MS: '12000' },
    });
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
  });
  afterAll(() => stack?.stop());

  it('answers a request it has taken before exiting, however long it runs', async () => {
    const portfolioId = tenant.portfolioIds[0];
    const externalId = `slow-${Date.now()}`;
    const lock = await holdAdvisoryLock(stack.databaseUrl, `debtor:${portfolioId}:${externalId}`);

    const batch = request(stack.publicUrl)
      .post(`/public/v1/portfolios/${portfolioId}/debtors`)
      .set('Authorization', `Bearer ${tenant.key}`)
      .send({ debtors: [{ externalId, identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'D-1' }] })
      .then((res) => res);
    await untilWaiting(lock); // api-core's transaction is queued behind our lock

    const exited = stack.apiCores[0].stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 3_000));
    await lock.release();

    const res = await batch;
    expect(res.status).toBe(200);
    expect(res.body.data.summary).toEqual({ created: 1, received: 1, rejected: 0, updated: 0 });
    expect(await exited).toBe(0);
    const rows = await withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT count(*)::int AS n FROM debtors WHERE external_id = $1', [externalId])).rows);
    expect(rows).toEqual([{ n: 1 }]);
  }, 30_000);
});
