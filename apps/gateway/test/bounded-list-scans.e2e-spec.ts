import { decodeCursor, MAX_ROWS_EXAMINED_PER_PAGE } from '@dc/contracts';
import { createTenant, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import request from 'supertest';

/**
 * Bounded list scans (docs/adr/0042): a filter that is not a page's index key (`from`/`to`, a second
 * filter) examines at most MAX_ROWS_EXAMINED_PER_PAGE rows per page. Portfolio A holds 2.5 times
 * that many payments and calls, almost all outside the filters; the few that match sit past the
 * first cap. A page that reaches the cap first is short — the first one empty — with hasMore true
 * and a cursor after the last row it examined; following the cursors visits the whole portfolio
 * and returns exactly the matching rows, in id order.
 */
const CAP = MAX_ROWS_EXAMINED_PER_PAGE;
const ROWS = CAP * 2.5;
/** The n-th row (1-based) of a table in id order: ids sort as their numbers. */
const rowId = (prefix: string, n: number) => `${prefix}_${String(n).padStart(26, '0')}`;
/** Rows of portfolio A that match, by position: three just past the first cap, one in the last stretch. */
const MATCHING = [CAP + 100, CAP + 101, CAP + 102, 2 * CAP + 500];

interface Page {
  data: { id: string }[];
  pagination: { hasMore: boolean; limit: number; nextCursor: string | null };
}

describe('bounded list scans: from/to and combined filters (docs/adr/0042)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let pfA: string;
  let pfB: string;

  beforeAll(async () => {
    stack = await Stack.start();
    tenant = await createTenant(new OperatorClient(stack.operatorUrl), { portfolios: 2 });
    [pfA, pfB] = tenant.portfolioIds;
    await withDatabase(stack.databaseUrl, async (c) => {
      await c.query(
        `INSERT INTO debtors (id, portfolio_id, external_id, status, identity_first_name, identity_document_type, identity_document_number)
         VALUES ($1, $2, 'A', 'active', 'Ana', 'national_id', 'DOC-A'), ($3, $4, 'B', 'active', 'Luis', 'national_id', 'DOC-B')`,
        [rowId('dbt', 1), pfA, rowId('dbt', 2), pfB],
      );
      // Portfolio A: ROWS payments of 2026 and outbound calls of 2026, set-based. Portfolio B: 10 of
      // each after them, the last one matching.
      await c.query(
        `INSERT INTO payments (id, portfolio_id, debtor_id, amount, currency, payment_date, payment_method, source, created_at, updated_at)
         SELECT 'pay_' || lpad(g::text, 26, '0'), CASE WHEN g <= $1 THEN $2 ELSE $3 END, CASE WHEN g <= $1 THEN $4 ELSE $5 END,
                10, 'EUR', '2026-05-' || lpad((g % 28 + 1)::text, 2, '0'), 'transfer', 'panel', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z'
         FROM generate_series(1, $1 + 10) g`,
        [ROWS, pfA, pfB, rowId('dbt', 1), rowId('dbt', 2)],
      );
      await c.query(
        `INSERT INTO calls (id, portfolio_id, debtor_id, direction, status, created_at, updated_at)
         SELECT 'call_' || lpad(g::text, 26, '0'), CASE WHEN g <= $1 THEN $2 ELSE $3 END, CASE WHEN g <= $1 THEN $4 ELSE $5 END,
                'outbound', 'no_answer', '2026-05-01T00:00:00Z'::timestamptz + g * interval '1 minute', '2026-06-01T00:00:00Z'
         FROM generate_series(1, $1 + 10) g`,
        [ROWS, pfA, pfB, rowId('dbt', 1), rowId('dbt', 2)],
      );
      // The matching ones, and near misses just outside the bounds (spec list rules 7-8).
      const dates = ['9999-01-01', '9999-01-01T08:00:00Z', '9999-06-30', '9999-12-31T23:59:59Z'];
      for (const [k, n] of MATCHING.entries()) {
        await c.query(`UPDATE payments SET payment_date = $2 WHERE id = $1`, [rowId('pay', n), dates[k]]);
        await c.query(`UPDATE calls SET created_at = $2, direction = 'inbound', status = 'completed' WHERE id = $1`, [rowId('call', n), dates[k].length === 10 ? `${dates[k]}T00:00:00Z` : dates[k]]);
      }
      await c.query(`UPDATE payments SET payment_date = '9998-12-31T23:59:59Z' WHERE id = $1`, [rowId('pay', CAP + 103)]);
      await c.query(`UPDATE calls SET created_at = '9998-12-31T23:59:59.999Z', direction = 'inbound' WHERE id = $1`, [rowId('call', CAP + 103)]);
      await c.query(`UPDATE calls SET status = 'completed' WHERE id = $1`, [rowId('call', 7)]); // completed but outbound
      await c.query(`UPDATE payments SET payment_date = '9999-02-01' WHERE id = $1`, [rowId('pay', ROWS + 10)]);
      await c.query(`UPDATE calls SET created_at = '9999-02-01T00:00:00Z', direction = 'inbound', status = 'completed' WHERE id = $1`, [rowId('call', ROWS + 10)]);
    });
  }, 60_000);
  afterAll(() => stack?.stop());

  const get = (path: string) => request(stack.publicUrl).get(`/public/v1${path}`).set('Authorization', `Bearer ${tenant.key}`);

  /** Every page of a list, asserting each one's status and body shape. */
  async function walk(path: string, limit = 50): Promise<Page[]> {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await get(`${path}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: expect.any(Array),
        pagination: { hasMore: expect.any(Boolean), limit, nextCursor: res.body.pagination.hasMore ? expect.any(String) : null },
      });
      pages.push(res.body);
      cursor = res.body.pagination.nextCursor;
      expect(pages.length).toBeLessThanOrEqual(20);
    } while (cursor);
    return pages;
  }

  /** Each page's ids, and the row each cursor resumes after (the cursor is opaque to clients, not to us). */
  const idsOf = (pages: Page[]) => pages.map((p) => p.data.map((row) => row.id));
  const resumesAfter = (pages: Page[]) => pages.map((p) => (p.pagination.nextCursor === null ? null : decodeCursor(p.pagination.nextCursor)));

  it('GET /v1/payments?from=9999-01-01: the first page is empty with hasMore, the walk returns exactly the matching payments', async () => {
    const first = await get(`/payments?portfolioId=${pfA}&from=9999-01-01`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: [], pagination: { hasMore: true, limit: 50, nextCursor: expect.any(String) } });
    expect(decodeCursor(first.body.pagination.nextCursor)).toBe(rowId('pay', CAP));

    const pages = await walk(`/payments?portfolioId=${pfA}&from=9999-01-01`);
    expect(idsOf(pages)).toEqual([[], MATCHING.slice(0, 3).map((n) => rowId('pay', n)), [rowId('pay', MATCHING[3])]]);
    expect(resumesAfter(pages)).toEqual([rowId('pay', CAP), rowId('pay', 2 * CAP), null]);
    expect(pages[1].data[0]).toEqual({
      id: rowId('pay', CAP + 100), externalId: null, portfolioId: pfA, debtorId: rowId('dbt', 1), debtId: null, promiseId: null,
      amount: 10, currency: 'EUR', paymentDate: '9999-01-01', paymentMethod: 'transfer', reference: null,
      createdAt: '2026-06-01T00:00:00.000Z', updatedAt: '2026-06-01T00:00:00.000Z',
    });
  });

  it('a page that fills before the cap resumes after its last row; one cut by the cap after the last row it examined', async () => {
    const pages = await walk(`/payments?portfolioId=${pfA}&from=9999-01-01`, 2);
    const [m1, m2, m3, m4] = MATCHING.map((n) => rowId('pay', n));
    expect(idsOf(pages)).toEqual([[], [m1, m2], [m3], [m4]]);
    expect(resumesAfter(pages)).toEqual([rowId('pay', CAP), m2, rowId('pay', CAP + 101 + CAP), null]);
  });

  it('payments: to=2000-01-01 matches nothing and ends; from/to bound the text of paymentDate exactly', async () => {
    const none = await walk(`/payments?portfolioId=${pfA}&to=2000-01-01`);
    expect(idsOf(none)).toEqual([[], [], []]);
    // to=<date> excludes that day's date-times (text order), to=<date>T23:59:59Z includes them.
    expect(idsOf(await walk(`/payments?portfolioId=${pfA}&from=9999-01-01&to=9999-01-01`)).flat()).toEqual([rowId('pay', MATCHING[0])]);
    expect(idsOf(await walk(`/payments?portfolioId=${pfA}&from=9999-01-01&to=9999-01-01T23:59:59Z`)).flat()).toEqual(MATCHING.slice(0, 2).map((n) => rowId('pay', n)));
  });

  it('payments across every reachable portfolio: the cap is shared by the two scans, the walk returns both portfolios\' matches', async () => {
    const pages = await walk('/payments?from=9999-01-01');
    expect(pages[0].data).toEqual([]);
    expect(pages[0].pagination.hasMore).toBe(true);
    expect(idsOf(pages).flat()).toEqual([...MATCHING.map((n) => rowId('pay', n)), rowId('pay', ROWS + 10)]);
    // Each scan examines half the cap: the walk takes twice as many pages as one portfolio's.
    expect(resumesAfter(pages).slice(0, 2)).toEqual([rowId('pay', CAP / 2), rowId('pay', CAP)]);
  });

  it('GET /v1/calls?from=9999-01-01: the first page is empty with hasMore, the walk returns exactly the matching calls', async () => {
    const first = await get(`/calls?portfolioId=${pfA}&from=9999-01-01`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: [], pagination: { hasMore: true, limit: 50, nextCursor: expect.any(String) } });

    const pages = await walk(`/calls?portfolioId=${pfA}&from=9999-01-01`);
    expect(idsOf(pages)).toEqual([[], MATCHING.slice(0, 3).map((n) => rowId('call', n)), [rowId('call', MATCHING[3])]]);
    expect(resumesAfter(pages)).toEqual([rowId('call', CAP), rowId('call', 2 * CAP), null]);
    expect(pages[1].data[0]).toEqual({
      id: rowId('call', CAP + 100), portfolioId: pfA, debtorId: rowId('dbt', 1), campaignId: null, direction: 'inbound', status: 'completed',
      fromNumber: null, toNumber: null, connectedAt: null, effectiveDurationSec: null, metricsStartTime: null, metricsEndTime: null,
      createdAt: '9999-01-01T00:00:00.000Z', updatedAt: '2026-06-01T00:00:00.000Z',
    });
  });

  it('calls: a combined filter (status and direction) and to are capped the same way', async () => {
    // status is the key (almost every call has no answer), direction the filter: only the near miss is both.
    const combined = await walk(`/calls?portfolioId=${pfA}&status=no_answer&direction=inbound`);
    expect(combined[0]).toEqual({ data: [], pagination: { hasMore: true, limit: 50, nextCursor: expect.any(String) } });
    expect(idsOf(combined).flat()).toEqual([rowId('call', CAP + 103)]);
    // A to without time is the end of that day (spec list rule 7): 9999-01-01's two calls, not the near miss before it.
    expect(idsOf(await walk(`/calls?portfolioId=${pfA}&from=9999-01-01&to=9999-01-01`)).flat()).toEqual(MATCHING.slice(0, 2).map((n) => rowId('call', n)));
    expect(idsOf(await walk(`/calls?portfolioId=${pfA}&to=2000-01-01`))).toEqual([[], [], []]);
    expect(idsOf(await walk('/calls?from=9999-01-01')).flat()).toEqual([...MATCHING.map((n) => rowId('call', n)), rowId('call', ROWS + 10)]);
  });

  it('a filter its index serves still fills its pages (no cap): calls by status', async () => {
    const res = await get(`/calls?portfolioId=${pfA}&status=completed`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [rowId('call', 7), ...MATCHING.map((n) => rowId('call', n))].map((id) => expect.objectContaining({ id })),
      pagination: { hasMore: false, limit: 50, nextCursor: null },
    });
  });
});
