import { createTenant, OperatorClient, Stack, Tenant } from '@dc/testing';
import request from 'supertest';

describe('pagination rules (spec: Pagination and list rules) on GET /portfolios', () => {
  let stack: Stack;
  let tenant: Tenant;
  let allIds: string[];

  beforeAll(async () => {
    stack = await Stack.start();
    tenant = await createTenant(new OperatorClient(stack.operatorUrl), { portfolios: 120 });
    allIds = [...tenant.portfolioIds].sort();
  });
  afterAll(() => stack?.stop());

  const list = (query: string) =>
    request(stack.publicUrl).get(`/public/v1/portfolios${query}`).set('Authorization', `Bearer ${tenant.key}`);

  it.each([
    ['', 50],
    ['?limit=0', 50],
    ['?limit=-1', 50],
    ['?limit=1', 1],
    ['?limit=100', 100],
    ['?limit=101', 100],
    ['?limit=100000', 100],
  ])('limit %s gives pages of %i', async (query, expected) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(expected);
    expect(res.body.pagination).toEqual({ hasMore: true, limit: expected, nextCursor: expect.any(String) });
  });

  it.each(['abc', '1.5', '10abc', ''])('limit=%s that is not an integer is 400 validation_error', async (value) => {
    if (value === '') {
      // An empty value is the same as no value.
      expect((await list('?limit=')).body.pagination.limit).toBe(50);
      return;
    }
    const res = await list(`?limit=${value}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: expect.stringContaining('limit'),
      requestId: res.headers['x-request-id'],
      issues: [{ message: expect.stringContaining('limit must be an integer'), path: 'limit' }],
    });
  });

  it('walks 120 portfolios in id order, each exactly once, ending with nextCursor null', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      pages.push(res.body.data.length);
      seen.push(...res.body.data.map((p: { id: string }) => p.id));
      cursor = res.body.pagination.nextCursor;
      expect(res.body.pagination.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(pages).toEqual([50, 50, 20]);
    expect(seen).toEqual(allIds);
  });

  it('an exact last page says hasMore false', async () => {
    const first = await list('?limit=100');
    const last = await list(`?limit=20&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`);
    expect(last.body.data).toHaveLength(20);
    expect(last.body.pagination).toEqual({ hasMore: false, limit: 20, nextCursor: null });
  });

  it('a key restricted to some portfolios sees only those on every page, not only the first', async () => {
    // Found in an earlier refactor: the cursor condition replaced the key's restriction from page 2 on.
    const operator = new OperatorClient(stack.operatorUrl);
    const allowed = [allIds[10], allIds[70]];
    const restricted = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'two', portfolioIds: allowed });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(stack.publicUrl)
        .get(`/public/v1/portfolios?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
        .set('Authorization', `Bearer ${restricted.data.key}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((p: { id: string }) => p.id));
      cursor = res.body.pagination.nextCursor;
    } while (cursor && seen.length <= allIds.length);
    expect(seen).toEqual(allowed);
  });

  it('a cursor we did not issue is 400 validation_error naming the cursor', async () => {
    const res = await list('?cursor=bm90LWEtY3Vyc29y');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.issues).toEqual([{ message: 'cursor is not valid', path: 'cursor' }]);
  });
});
