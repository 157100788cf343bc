import { createTenant, insertDebt, insertDebtor, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import request from 'supertest';

/**
 * Spec: Call resource, list rules 5-7 and 9, Promise and Campaign status, Events; README, Operator API:
 * operator intake of calls, promises and campaigns; docs/adr/0013.
 */
describe('calls, promises and campaigns', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant; // portfolios[0] (EUR), [1] (EUR, used for date filters), [2] demo
  let other: Tenant;
  let pf0: string;
  let pf1: string;
  let demoPf: string;
  let d1: string; // pf0, debt USD
  let d2: string; // pf0
  let d3: string; // pf1
  let demoDebtor: string;
  let otherDebtor: string;
  let usdDebt: string;

  type Sql = Parameters<Parameters<typeof withDatabase>[1]>[0];
  const sql = <T>(fn: (client: Sql) => Promise<T>) => withDatabase(stack.databaseUrl, fn);
  const events = (type: string, where = '') =>
    sql(async (c) => (await c.query(`SELECT * FROM outbox_events WHERE type = $1 ${where} ORDER BY id`, [type])).rows);

  const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

  beforeAll(async () => {
    stack = await Stack.start();
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 2 });
    other = await createTenant(operator, { name: 'Other Org' });
    [pf0, pf1] = tenant.portfolioIds;
    const demo = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/portfolios`, { identityName: 'Demo', identityCurrency: ['EUR'] });
    demoPf = demo.data.id;
    await operator.expect(200, 'PATCH', `/portfolios/${demoPf}`, { demo: true });
    await sql(async (c) => {
      d1 = await insertDebtor(c, { portfolioId: pf0 });
      d2 = await insertDebtor(c, { portfolioId: pf0 });
      d3 = await insertDebtor(c, { portfolioId: pf1 });
      demoDebtor = await insertDebtor(c, { portfolioId: demoPf });
      otherDebtor = await insertDebtor(c, { portfolioId: other.portfolioIds[0] });
      usdDebt = await insertDebt(c, { portfolioId: pf0, debtorId: d1, currency: 'USD', totalAmount: 500 });
    });
  });
  afterAll(() => stack?.stop());

  const get = (path: string, key = tenant.key) => request(stack.publicUrl).get(`/public/v1${path}`).set('Authorization', `Bearer ${key}`);

  // supertest responses (public) and fetch-based JsonResponses (operator) alike.
  type AnyResponse = { status: number; body: any; headers: any };
  const requestIdOf = (res: AnyResponse) => (typeof res.headers.get === 'function' ? res.headers.get('x-request-id') : res.headers['x-request-id']);

  function expectError(res: AnyResponse, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String), requestId: requestIdOf(res) }) });
  }

  function expectValidation(res: AnyResponse, path: string, messagePart?: string) {
    expectError(res, 400, 'validation_error');
    expect(res.body.error.issues).toEqual([expect.objectContaining({ path, ...(messagePart ? { message: expect.stringContaining(messagePart) } : {}) })]);
  }

  async function walk(path: string, limit: number, key = tenant.key): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    const sep = path.includes('?') ? '&' : '?';
    do {
      const res = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
      cursor = res.body.pagination.nextCursor;
      expect(res.body.pagination.hasMore).toBe(cursor !== null);
    } while (cursor);
    return seen;
  }

  const createCall = (portfolioId: string, body: Record<string, unknown>) =>
    operator.expect(201, 'POST', `/portfolios/${portfolioId}/calls`, { direction: 'outbound', status: 'queued', ...body }).then((b) => b.data);
  const createPromise = (portfolioId: string, body: Record<string, unknown>) =>
    operator.expect(201, 'POST', `/portfolios/${portfolioId}/promises`, { amount: 50, promiseDate: '2026-12-01', ...body }).then((b) => b.data);
  const createCampaign = (portfolioId: string, body: Record<string, unknown> = {}) =>
    operator.expect(201, 'POST', `/portfolios/${portfolioId}/campaigns`, { name: 'Winter', ...body }).then((b) => b.data);

  const analysis = { summary: 'Debtor agreed to pay', sentiment: 0.4, disposition: 'promise to pay', outcomes: ['promise', 'callback'] };

  describe('calls', () => {
    it('operator creates a call; by id it carries analysis null, lists omit the key', async () => {
      const call = await createCall(pf0, {
        debtorId: d1,
        fromNumber: '+34910000000',
        toNumber: '+34600000000',
        connectedAt: '2026-01-05T10:00:01Z',
        effectiveDurationSec: 93.5,
        metricsStartTime: '2026-01-05T10:00:00.000Z',
        metricsEndTime: '2026-01-05T10:01:34.500Z',
        status: 'in_progress',
      });
      const expected = {
        id: expect.stringMatching(/^call_[0-9A-Z]{26}$/),
        portfolioId: pf0,
        debtorId: d1,
        campaignId: null,
        direction: 'outbound',
        status: 'in_progress',
        fromNumber: '+34910000000',
        toNumber: '+34600000000',
        connectedAt: '2026-01-05T10:00:01.000Z',
        effectiveDurationSec: 93.5,
        metricsStartTime: '2026-01-05T10:00:00.000Z',
        metricsEndTime: '2026-01-05T10:01:34.500Z',
        createdAt: ISO,
        updatedAt: ISO,
        analysis: null,
      };
      expect(call).toEqual(expected);
      const byId = await get(`/calls/${call.id}`);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual({ data: { ...expected, id: call.id } });

      const list = await get(`/calls?debtorId=${d1}`);
      const listed = list.body.data.find((c: { id: string }) => c.id === call.id);
      const listItem: Record<string, unknown> = { ...expected, id: call.id };
      delete listItem.analysis;
      expect(listed).toEqual(listItem);
      expect(Object.keys(listed)).not.toContain('analysis');

      // Once analysed, the by-id read shows it; lists still never carry the key.
      const patched = await operator.expect(200, 'PATCH', `/calls/${call.id}`, { analysis });
      expect(patched.data.analysis).toEqual(analysis);
      expect((await get(`/calls/${call.id}`)).body.data.analysis).toEqual(analysis);
      const again = (await get(`/calls?debtorId=${d1}`)).body.data.find((c: { id: string }) => c.id === call.id);
      expect(again).not.toHaveProperty('analysis');

      // null clears a nullable field; absent fields are untouched.
      const cleared = await operator.expect(200, 'PATCH', `/calls/${call.id}`, { analysis: null, toNumber: null });
      expect(cleared.data).toMatchObject({ analysis: null, toNumber: null, fromNumber: '+34910000000', effectiveDurationSec: 93.5 });
    });

    it('a call created completed writes one call.completed row whose data is the list item', async () => {
      const call = await createCall(pf0, { debtorId: d2, status: 'completed', analysis });
      const rows = await events('call.completed', `AND payload->>'id' = '${call.id}'`);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ organization_id: tenant.organizationId, portfolio_id: pf0, livemode: true, relayed_at: null });
      const listed = (await get(`/calls?debtorId=${d2}`)).body.data.find((c: { id: string }) => c.id === call.id);
      expect(rows[0].payload).toEqual(listed);
      expect(rows[0].payload).not.toHaveProperty('analysis');
    });

    it('the change to completed emits once; later patches emit nothing; a final status never changes (409)', async () => {
      const call = await createCall(pf0, { debtorId: d1, status: 'ringing' });
      const forCall = () => events('call.completed', `AND payload->>'id' = '${call.id}'`);
      await operator.expect(200, 'PATCH', `/calls/${call.id}`, { status: 'in_progress' });
      expect(await forCall()).toHaveLength(0);
      const done = await operator.expect(200, 'PATCH', `/calls/${call.id}`, { status: 'completed', effectiveDurationSec: 42 });
      expect(done.data.status).toBe('completed');
      const rows = await forCall();
      expect(rows).toHaveLength(1);
      expect(rows[0].payload).toMatchObject({ id: call.id, status: 'completed', effectiveDurationSec: 42 });
      await operator.expect(200, 'PATCH', `/calls/${call.id}`, { analysis });
      await operator.expect(200, 'PATCH', `/calls/${call.id}`, { status: 'completed' });
      expect(await forCall()).toHaveLength(1);
      const back = await operator.request('PATCH', `/calls/${call.id}`, { status: 'in_progress' });
      expect(back.status).toBe(409);
      expect(back.body.error.code).toBe('invalid_state_transition');
      expect(await forCall()).toHaveLength(1);
    });

    it('parallel patches to completed emit exactly one event', async () => {
      const call = await createCall(pf0, { debtorId: d2, status: 'in_progress' });
      const results = await Promise.all(Array.from({ length: 6 }, () => operator.request('PATCH', `/calls/${call.id}`, { status: 'completed' })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(await events('call.completed', `AND payload->>'id' = '${call.id}'`)).toHaveLength(1);
    });

    it('a demo portfolio emits no event', async () => {
      const call = await createCall(demoPf, { debtorId: demoDebtor, status: 'completed' });
      expect(call.status).toBe('completed');
      expect(await events('call.completed', `AND portfolio_id = '${demoPf}'`)).toHaveLength(0);
    });

    it('operator intake checks references and shapes', async () => {
      const bad = (body: Record<string, unknown>, portfolioId = pf0) => operator.request('POST', `/portfolios/${portfolioId}/calls`, { direction: 'outbound', status: 'queued', ...body });
      expectError(await bad({ debtorId: d3 }), 404, 'not_found'); // debtor of another portfolio
      expectError(await bad({ debtorId: otherDebtor }), 404, 'not_found');
      expectError(await bad({ debtorId: 'dbt_nope' }), 404, 'not_found');
      const foreignCampaign = await createCampaign(pf1);
      expectError(await bad({ debtorId: d1, campaignId: foreignCampaign.id }), 404, 'not_found');
      expectError(await bad({ debtorId: d1 }, 'pf_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'not_found');
      expectError(await bad({ debtorId: d1 }, 'nope'), 404, 'not_found');
      expectValidation(await bad({ debtorId: d1, direction: 'sideways' }), 'direction', 'inbound, outbound');
      expectValidation(await bad({ debtorId: d1, status: 'done' }), 'status', 'queued');
      expectValidation(await bad({ debtorId: d1, analysis: { summary: 'x', sentiment: 'good', disposition: 'x', outcomes: [] } }), 'analysis.sentiment');
      expectError(await operator.request('PATCH', '/calls/call_01ARZ3NDEKTSV4RRFFQ69G5FAV', { status: 'completed' }), 404, 'not_found');
      const noToken = await fetch(`${stack.operatorUrl}/operator/v1/portfolios/${pf0}/calls`, { method: 'POST' });
      expect(noToken.status).toBe(401);
    });

    describe('list filters', () => {
      let inbound: string;
      let noAnswer: string;
      let onDay: string; // 2026-01-10T00:00:00.000Z
      let lateOnDay: string; // 2026-01-10T23:59:59.500Z
      let nextDay: string; // 2026-01-11T00:00:00.000Z

      beforeAll(async () => {
        inbound = (await createCall(pf1, { debtorId: d3, direction: 'inbound', status: 'completed' })).id;
        noAnswer = (await createCall(pf1, { debtorId: d3, status: 'no_answer' })).id;
        const busy = (await createCall(pf1, { debtorId: d3, status: 'busy' })).id;
        [onDay, lateOnDay, nextDay] = [inbound, noAnswer, busy];
        await sql(async (c) => {
          await c.query(`UPDATE calls SET created_at = '2026-01-10T00:00:00.000Z' WHERE id = $1`, [onDay]);
          await c.query(`UPDATE calls SET created_at = '2026-01-10T23:59:59.500Z' WHERE id = $1`, [lateOnDay]);
          await c.query(`UPDATE calls SET created_at = '2026-01-11T00:00:00.000Z' WHERE id = $1`, [nextDay]);
        });
      });

      const ids = async (query: string) => {
        const res = await get(`/calls?portfolioId=${pf1}&${query}`);
        expect(res.status).toBe(200);
        return res.body.data.map((c: { id: string }) => c.id);
      };

      it('status takes one or several comma-separated values', async () => {
        expect(await ids('status=no_answer')).toEqual([noAnswer]);
        expect(await ids('status=completed,no_answer')).toEqual([inbound, noAnswer]);
        expect(await ids('status=completed,busy,no_answer')).toEqual([onDay, lateOnDay, nextDay]);
        expect(await ids('status=queued')).toEqual([]);
      });

      it('an unknown status is 400 naming the parameter and the allowed values', async () => {
        const res = await get('/calls?status=completed,done');
        expectValidation(res, 'status');
        expect(res.body.error.message).toContain('status');
        expect(res.body.error.message).toContain('queued, ringing, in_progress, completed, no_answer, busy, failed, cancelled');
      });

      it('direction filters, and an unknown direction is 400', async () => {
        expect(await ids('direction=inbound')).toEqual([inbound]);
        expect(await ids('direction=outbound')).toEqual([noAnswer, nextDay]);
        const res = await get('/calls?direction=sideways');
        expectValidation(res, 'direction', 'inbound, outbound');
      });

      it('from/to with dates: from is the start of the UTC day, to the end of it (inclusive)', async () => {
        expect(await ids('to=2026-01-10')).toEqual([onDay, lateOnDay]);
        expect(await ids('from=2026-01-10&to=2026-01-10')).toEqual([onDay, lateOnDay]);
        expect(await ids('from=2026-01-11')).toEqual([nextDay]);
        expect(await ids('to=2026-01-09')).toEqual([]);
      });

      it('from/to with date-times are exact instants (offsets honoured)', async () => {
        expect(await ids('to=2026-01-10T23:59:59Z')).toEqual([onDay]);
        expect(await ids('from=2026-01-10T12:00:00Z')).toEqual([lateOnDay, nextDay]);
        expect(await ids('from=2026-01-10T23:59:59.500Z&to=2026-01-11T00:00:00Z')).toEqual([lateOnDay, nextDay]);
        expect(await ids('to=2026-01-11T01:00:00%2B01:00')).toEqual([onDay, lateOnDay, nextDay]);
        expect(await ids('from=2026-01-10T01:00:00%2B01:00&to=2026-01-10T00:59:59%2B01:00')).toEqual([]);
      });

      it.each([
        ['from', 'yesterday'],
        ['to', '2026-02-30'],
        ['from', '2026-01-10T25:00:00Z'],
        ['to', '10/01/2026'],
      ])('%s=%s that is not ISO 8601 is 400 naming the parameter', async (param, value) => {
        const res = await get(`/calls?${param}=${encodeURIComponent(value)}`);
        expectValidation(res, param, 'ISO 8601');
      });
    });

    it('another organization and a restricted key see 404 and no rows', async () => {
      const call = await createCall(pf0, { debtorId: d1 });
      expectError(await get(`/calls/${call.id}`, other.key), 404, 'not_found');
      expect((await get('/calls', other.key)).body.data).toEqual([]);
      expectError(await get('/calls/not-an-id'), 404, 'not_found');

      const key = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'restricted' });
      await operator.expect(200, 'PATCH', `/api-keys/${key.data.id}`, { portfolioIds: [pf1] });
      expectError(await get(`/calls/${call.id}`, key.data.key), 404, 'not_found');
      const seen = await walk('/calls', 100, key.data.key);
      expect(seen.length).toBeGreaterThan(0);
      const portfolios = await sql(async (c) => (await c.query('SELECT DISTINCT portfolio_id FROM calls WHERE id = ANY($1)', [seen])).rows);
      expect(portfolios).toEqual([{ portfolio_id: pf1 }]);
    });

    it('a page walk returns every reachable call exactly once, in id order', async () => {
      for (let i = 0; i < 5; i += 1) await createCall(pf0, { debtorId: d2 });
      const expected = await sql(async (c) =>
        (await c.query('SELECT id FROM calls WHERE portfolio_id = ANY($1) ORDER BY id', [[pf0, pf1, demoPf]])).rows.map((r: { id: string }) => r.id));
      const seen = await walk('/calls', 3);
      expect(seen).toEqual(expected);
      expect(new Set(seen).size).toBe(seen.length);
    });
  });

  describe('promises', () => {
    const promiseShape = (fields: Record<string, unknown>) => ({
      id: expect.stringMatching(/^prm_[0-9A-Z]{26}$/),
      portfolioId: pf0,
      debtorId: d1,
      debtId: null,
      callId: null,
      amount: 50,
      currency: 'EUR',
      promiseDate: '2026-12-01',
      status: 'pending',
      paymentId: null,
      fulfillmentDate: null,
      createdAt: ISO,
      updatedAt: ISO,
      ...fields,
    });

    it('creation gives a pending promise and exactly one promise.created with the list item', async () => {
      const call = await createCall(pf0, { debtorId: d1, status: 'completed' });
      const promise = await createPromise(pf0, { debtorId: d1, debtId: usdDebt, callId: call.id, amount: 120.25, promiseDate: '2026-12-01T10:00:00Z' });
      // Currency omitted: the debt's.
      expect(promise).toEqual(promiseShape({ debtId: usdDebt, callId: call.id, amount: 120.25, currency: 'USD', promiseDate: '2026-12-01T10:00:00Z' }));
      const rows = await events('promise.created', `AND payload->>'id' = '${promise.id}'`);
      expect(rows).toHaveLength(1);
      const listed = (await get(`/promises?debtorId=${d1}`)).body.data.find((p: { id: string }) => p.id === promise.id);
      expect(listed).toEqual(promise);
      expect(rows[0].payload).toEqual(listed);
    });

    it('without a debt the currency is the portfolio main currency; an explicit one wins', async () => {
      expect((await createPromise(pf0, { debtorId: d2 })).currency).toBe('EUR');
      expect((await createPromise(pf0, { debtorId: d1, debtId: usdDebt, currency: 'GBP' })).currency).toBe('GBP');
    });

    it('references must belong to the portfolio (and the call to the debtor); bad shapes are 400', async () => {
      const bad = (body: Record<string, unknown>) => operator.request('POST', `/portfolios/${pf0}/promises`, { debtorId: d1, amount: 10, promiseDate: '2026-12-01', ...body });
      const foreignCall = await createCall(pf1, { debtorId: d3 });
      const otherDebtorsCall = await createCall(pf0, { debtorId: d2 });
      expectError(await bad({ debtorId: d3 }), 404, 'not_found');
      expectError(await bad({ callId: foreignCall.id }), 404, 'not_found');
      expectError(await bad({ callId: otherDebtorsCall.id }), 404, 'not_found');
      expectError(await bad({ debtorId: d2, debtId: usdDebt }), 404, 'not_found');
      expectValidation(await bad({ amount: 0 }), 'amount');
      expectValidation(await bad({ currency: 'ABC' }), 'currency');
      expectValidation(await bad({ promiseDate: 'soon' }), 'promiseDate');
    });

    it('a demo portfolio emits no promise.created', async () => {
      await createPromise(demoPf, { debtorId: demoDebtor });
      expect(await events('promise.created', `AND portfolio_id = '${demoPf}'`)).toHaveLength(0);
    });

    it('status: pending → partial | broken | cancelled once; anything else is 409 invalid_state_transition', async () => {
      for (const status of ['partial', 'broken', 'cancelled']) {
        const p = await createPromise(pf0, { debtorId: d2 });
        const moved = await operator.expect(200, 'POST', `/promises/${p.id}/status`, { status });
        expect(moved.data).toEqual({ ...p, status, updatedAt: ISO });
        const again = await operator.request('POST', `/promises/${p.id}/status`, { status: 'cancelled' });
        expectError(again, 409, 'invalid_state_transition');
        expectError(await operator.request('POST', `/promises/${p.id}/fulfil`, {}), 409, 'invalid_state_transition');
      }
      const p = await createPromise(pf0, { debtorId: d2 });
      expectValidation(await operator.request('POST', `/promises/${p.id}/status`, { status: 'fulfilled' }), 'status', 'partial, broken, cancelled');
      expectError(await operator.request('POST', '/promises/prm_01ARZ3NDEKTSV4RRFFQ69G5FAV/status', { status: 'broken' }), 404, 'not_found');
    });

    it('fulfil registers a linked payment and payment.registered, once', async () => {
      const p = await createPromise(pf0, { debtorId: d1, debtId: usdDebt, amount: 80 });
      const res = await operator.expect(200, 'POST', `/promises/${p.id}/fulfil`, { paymentDate: '2026-12-02', method: 'card', reference: 'R-1' });
      const { promise, payment } = res.data;
      expect(payment).toEqual({
        id: expect.stringMatching(/^pay_[0-9A-Z]{26}$/),
        externalId: null,
        portfolioId: pf0,
        debtorId: d1,
        debtId: usdDebt,
        promiseId: p.id,
        amount: 80,
        currency: 'USD',
        paymentDate: '2026-12-02',
        paymentMethod: 'card',
        reference: 'R-1',
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(promise).toEqual({ ...p, status: 'fulfilled', paymentId: payment.id, fulfillmentDate: '2026-12-02', updatedAt: ISO });
      const stored = await sql(async (c) => (await c.query('SELECT source FROM payments WHERE id = $1', [payment.id])).rows);
      expect(stored).toEqual([{ source: 'promise' }]);
      const rows = await events('payment.registered', `AND payload->>'id' = '${payment.id}'`);
      expect(rows).toHaveLength(1);
      expect(rows[0].payload).toEqual(payment);
      expect((await get(`/payments/${payment.id}`)).body.data).toEqual(payment);
      const listed = (await get(`/promises?debtorId=${d1}&status=fulfilled`)).body.data;
      expect(listed).toEqual([promise]);

      expectError(await operator.request('POST', `/promises/${p.id}/fulfil`, {}), 409, 'invalid_state_transition');
      expect(await events('payment.registered', `AND payload->>'promiseId' = '${p.id}'`)).toHaveLength(1);
    });

    it('parallel fulfils of one promise: one succeeds, the others are 409, one payment', async () => {
      const p = await createPromise(pf0, { debtorId: d2, amount: 12 });
      const results = await Promise.all(Array.from({ length: 5 }, () => operator.request('POST', `/promises/${p.id}/fulfil`, {})));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
      const payments = await sql(async (c) => (await c.query('SELECT id FROM payments WHERE promise_id = $1', [p.id])).rows);
      expect(payments).toHaveLength(1);
      expect(await events('payment.registered', `AND payload->>'promiseId' = '${p.id}'`)).toHaveLength(1);
    });

    it('fulfil defaults: the promised amount, today (UTC), transfer', async () => {
      const p = await createPromise(pf0, { debtorId: d2, amount: 33.3 });
      const { payment, promise } = (await operator.expect(200, 'POST', `/promises/${p.id}/fulfil`, {})).data;
      const today = new Date().toISOString().slice(0, 10);
      expect(payment).toMatchObject({ amount: 33.3, currency: 'EUR', paymentDate: today, paymentMethod: 'transfer', debtId: null, promiseId: p.id });
      expect(promise.fulfillmentDate).toBe(today);
    });

    it('a demo portfolio fulfils without events', async () => {
      const p = await createPromise(demoPf, { debtorId: demoDebtor });
      await operator.expect(200, 'POST', `/promises/${p.id}/fulfil`, {});
      expect(await sql(async (c) => (await c.query('SELECT * FROM outbox_events WHERE portfolio_id = $1', [demoPf])).rows)).toEqual([]);
    });

    it('list filters: status lists, debtorId, portfolioId; unknown status is 400', async () => {
      const all = await walk(`/promises?portfolioId=${pf0}`, 100);
      const byStatus = async (s: string) => (await get(`/promises?portfolioId=${pf0}&status=${s}`)).body.data.map((p: { status: string }) => p.status);
      expect(new Set(await byStatus('broken,cancelled'))).toEqual(new Set(['broken', 'cancelled']));
      expect(new Set(await byStatus('pending'))).toEqual(new Set(['pending']));
      const d2Only = (await get(`/promises?debtorId=${d2}&limit=100`)).body.data;
      expect(d2Only.every((p: { debtorId: string }) => p.debtorId === d2)).toBe(true);
      expect(all.length).toBeGreaterThan(d2Only.length);
      const res = await get('/promises?status=pending,kept');
      expectValidation(res, 'status', 'pending, fulfilled, partial, broken, cancelled');
    });

    it('reach: another organization and a restricted key see none; a page walk returns each once', async () => {
      expect((await get('/promises', other.key)).body.data).toEqual([]);
      const key = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'restricted-pf1' });
      await operator.expect(200, 'PATCH', `/api-keys/${key.data.id}`, { portfolioIds: [pf1] });
      expect((await get('/promises', key.data.key)).body.data).toEqual([]);
      const expected = await sql(async (c) =>
        (await c.query('SELECT id FROM promises WHERE portfolio_id = ANY($1) ORDER BY id', [[pf0, pf1, demoPf]])).rows.map((r: { id: string }) => r.id));
      expect(expected.length).toBeGreaterThan(5);
      expect(await walk('/promises', 4)).toEqual(expected);
    });
  });

  describe('campaigns', () => {
    const move = (id: string, to: string) => operator.request('POST', `/campaigns/${id}/transition`, { to });

    it('creation gives a draft with empty metrics; by id and list share the shape', async () => {
      const campaign = await createCampaign(pf0, { name: 'Spring', description: 'Early arrears', channel: 'voice', startsAt: '2026-03-01T08:00:00Z', endsAt: '2026-03-31T20:00:00Z' });
      const expected = {
        id: expect.stringMatching(/^cmp_[0-9A-Z]{26}$/),
        portfolioId: pf0,
        name: 'Spring',
        description: 'Early arrears',
        channel: 'voice',
        status: 'draft',
        startsAt: '2026-03-01T08:00:00.000Z',
        endsAt: '2026-03-31T20:00:00.000Z',
        createdAt: ISO,
        updatedAt: ISO,
        metrics: { callsTotal: 0, callsCompleted: 0, debtorsReached: 0, promisesTotal: 0, promisedAmounts: [] },
      };
      expect(campaign).toEqual(expected);
      expect((await get(`/campaigns/${campaign.id}`)).body).toEqual({ data: campaign });
      expect((await get(`/campaigns?portfolioId=${pf0}`)).body.data).toContainEqual(campaign);
      expectValidation(await operator.request('POST', `/portfolios/${pf0}/campaigns`, { name: 'x', endsAt: '2026-01-01T00:00:00Z', startsAt: '2026-02-01T00:00:00Z' }), 'endsAt');
      expectValidation(await operator.request('POST', `/portfolios/${pf0}/campaigns`, { name: 'x', channel: 'pigeon' }), 'channel');
    });

    it('walks draft → scheduled → active ↔ paused → completed → archived', async () => {
      const c = await createCampaign(pf0);
      for (const to of ['scheduled', 'active', 'paused', 'active', 'paused', 'active', 'completed', 'archived']) {
        const res = await move(c.id, to);
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ id: c.id, status: to });
      }
      expect((await get(`/campaigns/${c.id}`)).body.data.status).toBe('archived');
    });

    it.each([
      [[], 'active'],
      [[], 'paused'],
      [[], 'completed'],
      [['scheduled'], 'paused'],
      [['scheduled'], 'draft'],
      [['scheduled', 'active'], 'scheduled'],
      [['scheduled', 'active', 'paused'], 'completed'],
      [['scheduled', 'active', 'completed'], 'active'],
      [['archived'], 'archived'],
      [['archived'], 'draft'],
      [['scheduled', 'active'], 'active'],
    ])('after %j, a move to %s is 409 invalid_state_transition', async (path, to) => {
      const c = await createCampaign(pf0);
      for (const step of path) expect((await move(c.id, step)).status).toBe(200);
      const res = await move(c.id, to);
      expectError(res, 409, 'invalid_state_transition');
      expect((await get(`/campaigns/${c.id}`)).body.data.status).toBe(path.at(-1) ?? 'draft');
    });

    it.each([[[]], [['scheduled']], [['scheduled', 'active']], [['scheduled', 'active', 'paused']], [['scheduled', 'active', 'completed']]])(
      'archived is reachable after %j',
      async (path) => {
        const c = await createCampaign(pf0);
        for (const step of path) expect((await move(c.id, step)).status).toBe(200);
        expect((await move(c.id, 'archived')).body.data.status).toBe('archived');
      },
    );

    it('transition validation and 404', async () => {
      const c = await createCampaign(pf0);
      expectValidation(await move(c.id, 'running'), 'to', 'draft, scheduled');
      expectError(await move('cmp_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'scheduled'), 404, 'not_found');
      expectError(await move('nope', 'scheduled'), 404, 'not_found');
    });

    it('metrics: calls, completed calls, distinct debtors reached, promises and amounts per currency', async () => {
      const c = await createCampaign(pf0, { name: 'Metrics' });
      const c2 = await createCampaign(pf0, { name: 'Metrics 2' });
      const a = await createCall(pf0, { debtorId: d1, campaignId: c.id, status: 'completed' });
      const b = await createCall(pf0, { debtorId: d1, campaignId: c.id, status: 'completed' });
      const e = await createCall(pf0, { debtorId: d2, campaignId: c.id, status: 'queued' });
      await operator.expect(200, 'PATCH', `/calls/${e.id}`, { status: 'completed' });
      await createCall(pf0, { debtorId: d2, campaignId: c.id, status: 'no_answer' });
      const other2 = await createCall(pf0, { debtorId: d2, campaignId: c2.id, status: 'completed' });
      await createPromise(pf0, { debtorId: d1, callId: a.id, amount: 10 });
      await createPromise(pf0, { debtorId: d1, callId: b.id, amount: 5.55 });
      await createPromise(pf0, { debtorId: d1, callId: b.id, debtId: usdDebt, amount: 7 });
      await createPromise(pf0, { debtorId: d2, callId: other2.id, amount: 1 });
      await createPromise(pf0, { debtorId: d1, amount: 1000 }); // no call: in no campaign

      const metrics = { callsTotal: 4, callsCompleted: 3, debtorsReached: 2, promisesTotal: 3, promisedAmounts: [{ currency: 'EUR', amount: 15.55 }, { currency: 'USD', amount: 7 }] };
      const metrics2 = { callsTotal: 1, callsCompleted: 1, debtorsReached: 1, promisesTotal: 1, promisedAmounts: [{ currency: 'EUR', amount: 1 }] };
      expect((await get(`/campaigns/${c.id}`)).body.data.metrics).toEqual(metrics);
      const listed = (await get(`/campaigns?portfolioId=${pf0}&limit=100`)).body.data;
      expect(listed.find((x: { id: string }) => x.id === c.id).metrics).toEqual(metrics);
      expect(listed.find((x: { id: string }) => x.id === c2.id).metrics).toEqual(metrics2);
      const calls = (await get(`/calls?campaignId=${c.id}`)).body.data;
      expect(calls).toHaveLength(4);
    });

    it('list filters by status lists; unknown status is 400', async () => {
      const statuses = async (q: string) => new Set((await get(`/campaigns?portfolioId=${pf0}&limit=100&status=${q}`)).body.data.map((x: { status: string }) => x.status));
      expect(await statuses('archived')).toEqual(new Set(['archived']));
      expect(await statuses('draft,archived')).toEqual(new Set(['draft', 'archived']));
      expectValidation(await get('/campaigns?status=draft,live'), 'status', 'draft, scheduled, active, paused, completed, archived');
    });

    it('reach and a page walk', async () => {
      const mine = await createCampaign(pf1);
      expectError(await get(`/campaigns/${mine.id}`, other.key), 404, 'not_found');
      expect((await get('/campaigns', other.key)).body.data).toEqual([]);
      const key = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'restricted-pf0' });
      await operator.expect(200, 'PATCH', `/api-keys/${key.data.id}`, { portfolioIds: [pf0] });
      expectError(await get(`/campaigns/${mine.id}`, key.data.key), 404, 'not_found');
      expectError(await get('/campaigns/nope'), 404, 'not_found');
      const expected = await sql(async (c) =>
        (await c.query('SELECT id FROM campaigns WHERE portfolio_id = ANY($1) ORDER BY id', [[pf0, pf1, demoPf]])).rows.map((r: { id: string }) => r.id));
      expect(await walk('/campaigns', 7)).toEqual(expected);
    });
  });
});
