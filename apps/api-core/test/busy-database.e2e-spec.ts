import { createTenant, holdAdvisoryLock, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import request from 'supertest';

/**
 * docs/adr/0014: a request cut off by the database's own timeouts (lock_timeout, statement_timeout)
 * did not run and is safe to retry: 503 service_unavailable with Retry-After, not a 500.
 */
describe('a request cut off by a database timeout', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await Stack.start({ env: { DATABASE_LOCK_TIMEOUT_MS: '300' } });
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
  });
  afterAll(() => stack?.stop());

  it('a batch that waits on a lock past lock_timeout is 503 with Retry-After, writes nothing, and its Idempotency-Key can be retried', async () => {
    const pf = tenant.portfolioIds[0];
    const body = { debtors: [{ externalId: 'busy-1', identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'B1' }] };
    const post = () =>
      request(stack.publicUrl).post(`/public/v1/portfolios/${pf}/debtors`).set('Authorization', `Bearer ${tenant.key}`).set('Idempotency-Key', 'busy-key-1').send(body);
    const lock = await holdAdvisoryLock(stack.databaseUrl, `debtor:${pf}:busy-1`);
    let res: request.Response;
    try {
      res = await post();
    } finally {
      await lock.release();
    }
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({
      error: { code: 'service_unavailable', message: 'The database is busy and this request was not carried out. Retry after the time in Retry-After.', requestId: res.headers['x-request-id'] },
    });
    expect(await withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT count(*)::int AS n FROM debtors')).rows[0].n)).toBe(0);
    const retry = await post();
    expect(retry.status).toBe(200);
    expect(retry.body.data.results[0].status).toBe('created');
  });
});
