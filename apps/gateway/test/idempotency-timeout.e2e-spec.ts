import { createTenant, holdAdvisoryLock, OperatorClient, Stack, Tenant, untilWaiting } from '@dc/testing';
import request from 'supertest';

/**
 * docs/adr/0009: two requests with the same Idempotency-Key are never both processed — also when the
 * first times out at the gateway while api-core is still running it. The batch is held on its own
 * per-debtor advisory lock (taken here first) past the gateway's NATS timeout.
 */
describe('Idempotency-Key when api-core does not answer in time', () => {
  let stack: Stack;
  let tenant: Tenant;
  let impatientUrl: string;

  beforeAll(async () => {
    stack = await Stack.start({ env: { IDEMPOTENCY_WAIT_MS: '800', IDEMPOTENCY_LEASE_MS: '20000' } });
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
    // Only the gateway under test gives up quickly; setup requests keep the normal timeout.
    impatientUrl = (await stack.startGateway({ NATS_REQUEST_TIMEOUT_MS: '600' })).publicUrl;
  });
  afterAll(() => stack?.stop());

  it('a retry while the first may still be running is not processed again', async () => {
    const portfolioId = tenant.portfolioIds[0];
    const externalId = `held-${Date.now()}`;
    const send = () =>
      request(impatientUrl)
        .post(`/public/v1/portfolios/${portfolioId}/debtors`)
        .set('Authorization', `Bearer ${tenant.key}`)
        .set('Idempotency-Key', `idem-${externalId}`)
        .send({ debtors: [{ externalId, identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'D-1' }] });
    const lock = await holdAdvisoryLock(stack.databaseUrl, `debtor:${portfolioId}:${externalId}`);
    try {
      const first = await send();
      expect(first.status).toBe(503);
      expect(first.body.error.code).toBe('service_unavailable');
      await untilWaiting(lock); // api-core is still on it

      const retry = await send();
      expect(retry.status).toBe(409);
      expect(retry.body.error.message).toMatch(/still being processed/);
    } finally {
      await lock.release();
    }
    // Only the first request ever reached api-core's batch handler: it finishes once the lock is gone.
    const handled = () => stack.apiCores[0].logs.filter((l) => l.msg === 'handled' && String(l.pattern).includes('batch'));
    await stack.apiCores[0].waitForLog((l) => l.msg === 'handled' && String(l.pattern).includes('batch'));
    await new Promise((r) => setTimeout(r, 300));
    expect(handled()).toHaveLength(1);
  });
});
