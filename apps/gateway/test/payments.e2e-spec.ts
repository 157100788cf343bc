import {
  createTenant, fixtureId, insertDebt, insertDebtor, OperatorClient, Stack, Tenant, withDatabase,
} from '@dc/testing';
import request from 'supertest';

type Client = Parameters<Parameters<typeof withDatabase>[1]>[0];

/** A copy of `body` without `keys` (an omitted optional field, not a null one). */
function without<T extends object>(body: T, ...keys: string[]): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k))) as Partial<T>;
}

/** Spec: Payment resource, POST /v1/payments, list rules 8-9; operator intake (README, Operator API). */
describe('payments', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant; // portfolios[0], [1]: main currency EUR; [2]: main currency XXX (set by SQL)
  let other: Tenant;
  let debtorA: string; // live debts: EUR (debtA1), EUR (debtA2)
  let debtA1: string;
  let debtA2: string;
  let debtorB: string; // no debts
  let otherDebtorId: string; // in the other organization

  const sql = <T>(fn: (client: Client) => Promise<T>) => withDatabase(stack.databaseUrl, fn);
  const count = (table: 'payments' | 'outbox_events') =>
    sql(async (c) => Number((await c.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n));

  beforeAll(async () => {
    stack = await Stack.start();
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 3 });
    other = await createTenant(operator, { name: 'Other Org' });
    await sql(async (c) => {
      debtorA = await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] });
      debtA1 = await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: debtorA, currency: 'EUR' });
      debtA2 = await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: debtorA, currency: 'EUR' });
      debtorB = await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] });
      otherDebtorId = await insertDebtor(c, { portfolioId: other.portfolioIds[0] });
      // A portfolio always has a main currency (CHECK constraint); legacy data can hold XXX (no currency).
      await c.query(`UPDATE portfolios SET identity_currency = '{XXX,EUR}' WHERE id = $1`, [tenant.portfolioIds[2]]);
    });
  });
  afterAll(() => stack?.stop());

  const post = (body: unknown, key = tenant.key) =>
    request(stack.publicUrl).post('/public/v1/payments').set('Authorization', `Bearer ${key}`).send(body as object);
  const get = (path: string, key = tenant.key) =>
    request(stack.publicUrl).get(`/public/v1${path}`).set('Authorization', `Bearer ${key}`);

  let seq = 0;
  const ext = () => `ext-${Date.now()}-${(seq += 1)}`;
  const base = () => ({
    externalId: ext(),
    portfolioId: tenant.portfolioIds[0],
    debtorId: debtorA,
    amount: 125.5,
    currency: 'EUR',
    paymentDate: '2024-03-10',
  });

  const paymentShape = (fields: Record<string, unknown>) => ({
    id: expect.stringMatching(/^pay_[0-9A-Z]{26}$/),
    externalId: expect.any(String),
    portfolioId: tenant.portfolioIds[0],
    debtorId: debtorA,
    debtId: null,
    promiseId: null,
    amount: 125.5,
    currency: 'EUR',
    paymentDate: '2024-03-10',
    paymentMethod: 'transfer',
    reference: null,
    createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    ...fields,
  });

  function expectError(res: request.Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { code, message: expect.any(String), requestId: res.headers['x-request-id'] } });
  }

  function expectValidation(res: request.Response, path: string) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'validation_error',
        message: expect.stringContaining(path),
        requestId: res.headers['x-request-id'],
        issues: [{ message: expect.stringContaining(path), path }],
      },
    });
  }

  const eventsFor = (paymentId: string) =>
    sql(async (c) => (await c.query(`SELECT type, portfolio_id, organization_id, livemode, payload FROM outbox_events WHERE payload->>'id' = $1`, [paymentId])).rows);

  describe('POST /payments: creation and idempotency', () => {
    it('201 with the Payment shape; the row and one payment.registered event are written together', async () => {
      const body = { ...base(), debtId: debtA1, method: 'card', reference: 'VCH-1' };
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        data: paymentShape({ externalId: body.externalId, debtId: debtA1, paymentMethod: 'card', reference: 'VCH-1' }),
      });
      const events = await eventsFor(res.body.data.id);
      expect(events).toEqual([
        { type: 'payment.registered', portfolio_id: tenant.portfolioIds[0], organization_id: tenant.organizationId, livemode: true, payload: res.body.data },
      ]);
      const row = await sql(async (c) => (await c.query('SELECT source, amount::text FROM payments WHERE id = $1', [res.body.data.id])).rows[0]);
      expect(row).toEqual({ source: 'api', amount: '125.5000' });
    });

    it('defaults: method transfer, optional fields null; amounts keep up to 4 decimals', async () => {
      const body = { ...base(), amount: 0.0001 };
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ data: paymentShape({ externalId: body.externalId, amount: 0.0001 }) });
    });

    it('the 201 body is the payment as stored: a read of it and its event carry the same JSON, amounts at the limits included', async () => {
      for (const amount of [0.0001, 1234.5678, 99_999_999_999.9999]) {
        const created = await post({ ...base(), amount, method: 'cash', reference: 'limits' });
        expect(created.status).toBe(201);
        const read = await get(`/payments/${created.body.data.id}`);
        expect(read.status).toBe(200);
        expect(read.body).toEqual(created.body);
        expect(JSON.stringify(read.body.data)).toBe(JSON.stringify(created.body.data));
        expect((await eventsFor(created.body.data.id)).map((e) => e.payload)).toEqual([created.body.data]);
      }
    });

    it('optional fields sent as null are absent (debtId, currency, method, reference)', async () => {
      const body = { ...base(), debtId: null, currency: null, method: null, reference: null };
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual(paymentShape({ externalId: body.externalId }));
    });

    it('an identical retry answers 200 with the existing payment and writes nothing', async () => {
      const body = { ...base(), debtId: debtA1, reference: 'R-2' };
      const first = await post(body);
      expect(first.status).toBe(201);
      const [payments, events] = [await count('payments'), await count('outbox_events')];
      const retry = await post(body);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first.body);
      expect([await count('payments'), await count('outbox_events')]).toEqual([payments, events]);
    });

    it('compares effective values: omitted method = transfer, omitted currency = the derived one', async () => {
      const body = { ...base(), method: 'transfer', debtId: debtA1 };
      const first = await post(body);
      expect(first.status).toBe(201);
      const retry = await post(without(body, 'method', 'currency'));
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first.body);
    });

    it('an identical retry is 200 even after the debtor\'s debts changed or the debtor was deleted', async () => {
      const debtor = await sql(async (c) => {
        const d = await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] });
        await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d, currency: 'GBP' });
        return d;
      });
      const body = without({ ...base(), debtorId: debtor }, 'currency');
      const first = await post(body);
      expect(first.status).toBe(201);
      expect(first.body.data.currency).toBe('GBP');
      // Now the currency would derive to the portfolio's main one (two currencies), yet the request is the same.
      await sql((c) => insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: debtor, currency: 'USD' }));
      const [payments, events] = [await count('payments'), await count('outbox_events')];
      const afterDebtsChanged = await post(body);
      expect(afterDebtsChanged.status).toBe(200);
      expect(afterDebtsChanged.body).toEqual(first.body);
      await operator.expect(204, 'DELETE', `/debtors/${debtor}`);
      const afterDeletion = await post(body);
      expect(afterDeletion.status).toBe(200);
      expect(afterDeletion.body).toEqual(first.body);
      expect([await count('payments'), await count('outbox_events')]).toEqual([payments, events]);
      // Naming a currency other than the stored one is still a conflict.
      expectError(await post({ ...body, currency: 'USD' }), 409, 'idempotency_conflict');
    });

    it('a currency named at first and omitted on retry must derive to the same one', async () => {
      const debtor = await sql(async (c) => {
        const d = await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] });
        await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d, currency: 'GBP' });
        return d;
      });
      const body = { ...base(), debtorId: debtor, currency: 'GBP' };
      expect((await post(body)).status).toBe(201);
      expect((await post(without(body, 'currency'))).status).toBe(200); // derives to GBP
      await sql((c) => insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: debtor, currency: 'USD' }));
      expectError(await post(without(body, 'currency')), 409, 'idempotency_conflict'); // now derives to EUR
    });

    it.each<[string, Record<string, unknown>]>([
      ['amount', { amount: 125.51 }],
      ['currency', { currency: 'USD' }],
      ['paymentDate', { paymentDate: '2024-03-11' }],
      ['debtorId', { debtorId: 'B' }],
      ['debtId', { debtId: 'A2' }],
      ['method', { method: 'cash' }],
      ['reference', { reference: 'other-voucher' }],
    ])('same externalId with a different %s is 409 idempotency_conflict', async (_field, change) => {
      const body = { ...base(), debtId: debtA1, reference: 'voucher' };
      expect((await post(body)).status).toBe(201);
      const changed: Record<string, unknown> = { ...body, ...change };
      if (change.debtorId) Object.assign(changed, { debtorId: debtorB, debtId: undefined });
      if (change.debtId) changed.debtId = debtA2;
      const [payments, events] = [await count('payments'), await count('outbox_events')];
      const res = await post(changed);
      expectError(res, 409, 'idempotency_conflict');
      expect([await count('payments'), await count('outbox_events')]).toEqual([payments, events]);
    });

    it('the same externalId in another portfolio is another payment', async () => {
      const body = base();
      expect((await post(body)).status).toBe(201);
      const debtor = await sql((c) => insertDebtor(c, { portfolioId: tenant.portfolioIds[1] }));
      const res = await post({ ...body, portfolioId: tenant.portfolioIds[1], debtorId: debtor });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual(paymentShape({ externalId: body.externalId, portfolioId: tenant.portfolioIds[1], debtorId: debtor }));
    });

    it('8 identical requests in parallel: one 201, seven 200, one row, one event', async () => {
      const body = { ...base(), debtId: debtA2 };
      const responses = await Promise.all(Array.from({ length: 8 }, () => post(body)));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      const ids = new Set(responses.map((r) => r.body.data.id));
      expect(ids.size).toBe(1);
      for (const r of responses) expect(r.body).toEqual(responses[0].body);
      const rows = await sql(async (c) => ({
        payments: (await c.query('SELECT id FROM payments WHERE portfolio_id = $1 AND external_id = $2', [body.portfolioId, body.externalId])).rows,
        events: (await c.query(`SELECT id FROM outbox_events WHERE payload->>'externalId' = $1`, [body.externalId])).rows,
      }));
      expect(rows.payments).toEqual([{ id: [...ids][0] }]);
      expect(rows.events).toHaveLength(1);
    });
  });

  describe('POST /payments: currency derivation (rule 3)', () => {
    it('from the debt named by debtId', async () => {
      const { debtor, debt } = await sql(async (c) => {
        const d = await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] });
        await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d, currency: 'EUR' });
        return { debtor: d, debt: await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d, currency: 'USD' }) };
      });
      const body = without({ ...base(), debtorId: debtor, debtId: debt }, 'currency');
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual(paymentShape({ externalId: body.externalId, debtorId: debtor, debtId: debt, currency: 'USD' }));
    });

    it('from the single currency of the debtor\'s live debts (deleted debts do not count)', async () => {
      const debtor = await sql(async (c) => {
        const d = await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] });
        await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d, currency: 'GBP' });
        await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d, currency: 'GBP' });
        const gone = await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d, currency: 'USD' });
        await c.query('UPDATE debts SET deleted_at = now() WHERE id = $1', [gone]);
        return d;
      });
      const body = without({ ...base(), debtorId: debtor }, 'currency');
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual(paymentShape({ externalId: body.externalId, debtorId: debtor, currency: 'GBP' }));
    });

    it.each([
      ['no debts', [] as string[]],
      ['live debts in two currencies', ['USD', 'GBP']],
    ])('from the portfolio main currency when the debtor has %s', async (_case, currencies) => {
      const debtor = await sql(async (c) => {
        const d = await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] });
        for (const currency of currencies) await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d, currency });
        return d;
      });
      const body = without({ ...base(), debtorId: debtor }, 'currency');
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual(paymentShape({ externalId: body.externalId, debtorId: debtor, currency: 'EUR' }));
    });

    it('400 validation_error when it cannot be derived (two currencies, portfolio main currency XXX); an explicit one works', async () => {
      const portfolioId = tenant.portfolioIds[2];
      const debtor = await sql(async (c) => {
        const d = await insertDebtor(c, { portfolioId });
        await insertDebt(c, { portfolioId, debtorId: d, currency: 'USD' });
        await insertDebt(c, { portfolioId, debtorId: d, currency: 'GBP' });
        return d;
      });
      const body = without({ ...base(), portfolioId, debtorId: debtor }, 'currency');
      const before = await count('payments');
      expectValidation(await post(body), 'currency');
      expect(await count('payments')).toBe(before);
      const explicit = await post({ ...body, currency: 'GBP' });
      expect(explicit.status).toBe(201);
      expect(explicit.body.data).toEqual(paymentShape({ externalId: body.externalId, portfolioId, debtorId: debtor, currency: 'GBP' }));
    });
  });

  describe('POST /payments: validation, scope and reach', () => {
    it.each([
      ['amount', { amount: 0 }],
      ['amount', { amount: -5 }],
      ['amount', { amount: 10.12345 }],
      ['amount', { amount: 1e-7 }],
      ['amount', { amount: '10' }],
      ['paymentDate', { paymentDate: '2024-02-30' }],
      ['paymentDate', { paymentDate: '10/03/2024' }],
      ['paymentDate', { paymentDate: '2024-03-10T10:00:00Z' }],
      ['externalId', { externalId: 'x'.repeat(129) }],
      ['externalId', { externalId: '' }],
      ['method', { method: 'bitcoin' }],
      ['currency', { currency: 'ABC' }],
      ['currency', { currency: 'eur' }],
      ['reference', { reference: 'r'.repeat(256) }],
      ['portfolioId', { portfolioId: undefined }],
      ['debtorId', { debtorId: undefined }],
      ['amount', { amount: undefined }],
    ])('%s %j is 400 validation_error', async (path, change) => {
      const before = await count('payments');
      expectValidation(await post({ ...base(), ...change }), path);
      expect(await count('payments')).toBe(before);
    });

    it('an unknown field is 400 validation_error', async () => {
      const res = await post({ ...base(), paidAmount: 3 });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_error', issues: [{ path: 'paidAmount', message: expect.any(String) }] });
    });

    it('accepts a 128-character externalId and a leap day', async () => {
      const res = await post({ ...base(), externalId: 'k'.repeat(128), paymentDate: '2024-02-29' });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual(paymentShape({ externalId: 'k'.repeat(128), paymentDate: '2024-02-29' }));
    });

    it('403 forbidden with a read-only key, and nothing is written', async () => {
      const before = await count('payments');
      expectError(await post(base(), tenant.readKey), 403, 'forbidden');
      expect(await count('payments')).toBe(before);
    });

    describe('404 not_found without revealing anything', () => {
      let restrictedKey: string;
      beforeAll(async () => {
        const key = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, {
          scopes: ['read', 'write'], portfolioIds: [tenant.portfolioIds[1]],
        });
        restrictedKey = key.data.key;
      });

      it.each([
        ['another organization\'s portfolio', () => ({ portfolioId: other.portfolioIds[0], debtorId: otherDebtorId })],
        ['a debtor of another organization', () => ({ debtorId: otherDebtorId })],
        ['a well-formed portfolio id that does not exist', () => ({ portfolioId: fixtureId('pf') })],
        ['a malformed portfolio id', () => ({ portfolioId: 'portfolio-1' })],
        ['a malformed debtor id', () => ({ debtorId: '42' })],
        ['a debt of another debtor', () => ({ debtorId: debtorB, debtId: debtA1 })],
        ['a malformed debt id', () => ({ debtId: 'nope' })],
      ])('for %s', async (_case, change) => {
        const before = await count('payments');
        expectError(await post({ ...base(), ...change() }), 404, 'not_found');
        expect(await count('payments')).toBe(before);
      });

      it('for a debtor of another portfolio of the same organization, a deleted debtor, a deleted debt', async () => {
        const { foreign, deleted, debtorWithGoneDebt, goneDebt } = await sql(async (c) => {
          const d = await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] });
          const g = await insertDebt(c, { portfolioId: tenant.portfolioIds[0], debtorId: d });
          await c.query('UPDATE debts SET deleted_at = now() WHERE id = $1', [g]);
          return {
            foreign: await insertDebtor(c, { portfolioId: tenant.portfolioIds[1] }),
            deleted: await insertDebtor(c, { portfolioId: tenant.portfolioIds[0], deletedAt: new Date() }),
            debtorWithGoneDebt: d,
            goneDebt: g,
          };
        });
        expectError(await post({ ...base(), debtorId: foreign }), 404, 'not_found');
        expectError(await post({ ...base(), debtorId: deleted }), 404, 'not_found');
        expectError(await post({ ...base(), debtorId: debtorWithGoneDebt, debtId: goneDebt }), 404, 'not_found');
      });

      it('for a portfolio outside a restricted key; inside it works', async () => {
        expectError(await post(base(), restrictedKey), 404, 'not_found');
        const debtor = await sql((c) => insertDebtor(c, { portfolioId: tenant.portfolioIds[1] }));
        const res = await post({ ...base(), portfolioId: tenant.portfolioIds[1], debtorId: debtor }, restrictedKey);
        expect(res.status).toBe(201);
      });
    });
  });

  describe('GET /payments and /payments/{id}', () => {
    let lister: Tenant;
    let restrictedKey: string;
    const p: Record<string, string> = {};
    let all: string[];

    beforeAll(async () => {
      lister = await createTenant(operator, { portfolios: 2, name: 'Lister' });
      const [pfA, pfB] = lister.portfolioIds;
      const { d1, d2, dB } = await sql(async (c) => ({
        d1: await insertDebtor(c, { portfolioId: pfA }),
        d2: await insertDebtor(c, { portfolioId: pfA }),
        dB: await insertDebtor(c, { portfolioId: pfB }),
      }));
      const viaApi = async (name: string, portfolioId: string, debtorId: string, paymentDate: string) => {
        const res = await post({ externalId: name, portfolioId, debtorId, amount: 10, currency: 'EUR', paymentDate }, lister.key);
        expect(res.status).toBe(201);
        p[name] = res.body.data.id;
      };
      // Date-time payment dates only enter through loads; insert them as stored text.
      const viaSql = (name: string, portfolioId: string, debtorId: string, paymentDate: string) =>
        sql(async (c) => {
          p[name] = fixtureId('pay');
          await c.query(
            `INSERT INTO payments (id, portfolio_id, debtor_id, amount, currency, payment_date, source) VALUES ($1, $2, $3, 20, 'EUR', $4, 'import')`,
            [p[name], portfolioId, debtorId, paymentDate],
          );
        });
      await viaApi('p1', pfA, d1, '2024-03-09');
      await viaApi('p2', pfA, d1, '2024-03-10');
      await viaSql('p3', pfA, d2, '2024-03-10T08:30:00Z');
      await viaSql('p4', pfA, d2, '2024-03-10T15:00:00-05:00');
      await viaApi('p5', pfA, d1, '2024-03-11');
      await viaApi('p6', pfB, dB, '2024-03-10');
      all = Object.values(p).sort();
      const key = await operator.expect(201, 'POST', `/organizations/${lister.organizationId}/api-keys`, { portfolioIds: [pfB] });
      restrictedKey = key.data.key;
    });

    const ids = (...names: string[]) => names.map((n) => p[n]).sort();
    const listIds = async (query: string, key = lister.key) => {
      const res = await get(`/payments${query}`, key);
      expect(res.status).toBe(200);
      expect(res.body.pagination).toEqual({ hasMore: false, limit: 50, nextCursor: null });
      return res.body.data.map((x: { id: string }) => x.id);
    };

    it('lists every reachable payment in id order with the Payment shape', async () => {
      const res = await get('/payments', lister.key);
      expect(res.status).toBe(200);
      expect(res.body.data.map((x: { id: string }) => x.id)).toEqual(all);
      expect(res.body.data.find((x: { id: string }) => x.id === p.p3)).toEqual({
        id: p.p3, externalId: null, portfolioId: lister.portfolioIds[0], debtorId: expect.stringMatching(/^dbt_/), debtId: null,
        promiseId: null, amount: 20, currency: 'EUR', paymentDate: '2024-03-10T08:30:00Z', paymentMethod: 'transfer',
        reference: null, createdAt: expect.any(String), updatedAt: expect.any(String),
      });
    });

    it('filters by portfolioId and debtorId', async () => {
      expect(await listIds(`?portfolioId=${lister.portfolioIds[1]}`)).toEqual(ids('p6'));
      const d2 = (await get(`/payments/${p.p3}`, lister.key)).body.data.debtorId;
      expect(await listIds(`?debtorId=${d2}`)).toEqual(ids('p3', 'p4'));
      expect(await listIds(`?portfolioId=${lister.portfolioIds[0]}&debtorId=${d2}`)).toEqual(ids('p3', 'p4'));
    });

    it.each([
      ['from=2024-03-10 includes the whole day', '?from=2024-03-10', ['p2', 'p3', 'p4', 'p5', 'p6']],
      ['to=2024-03-10 excludes that day\'s date-time values but keeps its date-only ones', '?to=2024-03-10', ['p1', 'p2', 'p6']],
      ['to=2024-03-10T23:59:59Z includes them', '?to=2024-03-10T23:59:59Z', ['p1', 'p2', 'p3', 'p4', 'p6']],
      ['from=to=2024-03-10 keeps the date-only ones of that day', '?from=2024-03-10&to=2024-03-10', ['p2', 'p6']],
      ['from with a time compares as text', '?from=2024-03-10T12:00:00Z', ['p4', 'p5']],
      ['a range with nothing in it', '?from=2025-01-01', []],
    ])('rule 8: %s', async (_case, query, expected) => {
      expect(await listIds(query)).toEqual(ids(...expected));
    });

    it.each([
      ['from', 'yesterday'],
      ['from', '2024-13-01'],
      ['to', '2024-02-30'],
      ['to', '2024-03-10T25:00:00Z'],
      ['to', '2024-03-10 10:00'],
    ])('unparseable %s=%s is 400 validation_error naming it', async (param, value) => {
      expectValidation(await get(`/payments?${param}=${encodeURIComponent(value)}`, lister.key), param);
    });

    it('400 for a non-numeric limit and an unknown query parameter', async () => {
      expectValidation(await get('/payments?limit=abc', lister.key), 'limit');
      const res = await get('/payments?status=paid', lister.key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    });

    it('walks the pages in id order, each payment once, ending with nextCursor null', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await get(`/payments?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, lister.key);
        expect(res.status).toBe(200);
        pages += 1;
        cursor = res.body.pagination.nextCursor;
        expect(res.body.pagination).toEqual({ hasMore: cursor !== null, limit: 4, nextCursor: cursor });
        seen.push(...res.body.data.map((x: { id: string }) => x.id));
      } while (cursor);
      expect(pages).toBe(2);
      expect(seen).toEqual(all);
      // With a filter too.
      const first = await get('/payments?limit=2&from=2024-03-10', lister.key);
      expect(first.body.data.map((x: { id: string }) => x.id)).toEqual(ids('p2', 'p3', 'p4', 'p5', 'p6').slice(0, 2));
      const second = await get(`/payments?limit=2&from=2024-03-10&cursor=${first.body.pagination.nextCursor}`, lister.key);
      expect(second.body.data.map((x: { id: string }) => x.id)).toEqual(ids('p2', 'p3', 'p4', 'p5', 'p6').slice(2, 4));
    });

    it('a restricted key sees only its portfolios; another organization sees nothing', async () => {
      expect(await listIds('', restrictedKey)).toEqual(ids('p6'));
      expect(await listIds(`?portfolioId=${lister.portfolioIds[0]}`, restrictedKey)).toEqual([]);
      expect(await listIds('', other.key)).toEqual([]);
      expect(await listIds(`?portfolioId=${lister.portfolioIds[0]}`, other.key)).toEqual([]);
    });

    it('GET /payments/{id}: 200 with the same shape as the creation', async () => {
      const created = await post({ ...base(), reference: 'by-id' });
      const res = await get(`/payments/${created.body.data.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created.body);
      expect((await get(`/payments/${p.p4}`, lister.key)).body.data.paymentDate).toBe('2024-03-10T15:00:00-05:00');
    });

    it('GET /payments/{id}: 404 for another organization, outside a restricted key, missing or malformed ids', async () => {
      expectError(await get(`/payments/${p.p1}`, other.key), 404, 'not_found');
      expectError(await get(`/payments/${p.p1}`, restrictedKey), 404, 'not_found');
      expect((await get(`/payments/${p.p6}`, restrictedKey)).status).toBe(200);
      expectError(await get(`/payments/${fixtureId('pay')}`, lister.key), 404, 'not_found');
      expectError(await get('/payments/pay_123', lister.key), 404, 'not_found');
    });

    it('payments of an inactive portfolio disappear from lists and by-id reads', async () => {
      await operator.expect(200, 'PATCH', `/portfolios/${lister.portfolioIds[1]}`, { status: 'inactive' });
      try {
        expect(await listIds('', lister.key)).toEqual(ids('p1', 'p2', 'p3', 'p4', 'p5'));
        expectError(await get(`/payments/${p.p6}`, lister.key), 404, 'not_found');
      } finally {
        await operator.expect(200, 'PATCH', `/portfolios/${lister.portfolioIds[1]}`, { status: 'active' });
      }
    });
  });

  describe('operator intake POST /operator/v1/portfolios/{id}/payments', () => {
    const intake = (portfolioId: string, body: unknown) => operator.request('POST', `/portfolios/${portfolioId}/payments`, body);

    it.each(['panel', 'collection_link'])('source %s: 201 with externalId null, the row and its event', async (source) => {
      const res = await intake(tenant.portfolioIds[0], { debtorId: debtorA, debtId: debtA1, amount: 40, paymentDate: '2024-04-01', method: 'cash', source });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ data: paymentShape({ externalId: null, debtId: debtA1, amount: 40, paymentDate: '2024-04-01', paymentMethod: 'cash' }) });
      const row = await sql(async (c) => (await c.query('SELECT source, external_id FROM payments WHERE id = $1', [res.body.data.id])).rows[0]);
      expect(row).toEqual({ source, external_id: null });
      expect(await eventsFor(res.body.data.id)).toEqual([
        { type: 'payment.registered', portfolio_id: tenant.portfolioIds[0], organization_id: tenant.organizationId, livemode: true, payload: res.body.data },
      ]);
    });

    it('has no idempotency: the same body twice is two payments', async () => {
      const body = { debtorId: debtorB, amount: 5, paymentDate: '2024-04-02', source: 'panel' };
      const [a, b] = [await intake(tenant.portfolioIds[0], body), await intake(tenant.portfolioIds[0], body)];
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.body.data.id).not.toBe(b.body.data.id);
      expect(a.body.data.currency).toBe('EUR');
    });

    it('validates the body and answers 404 for unknown portfolios and foreign debtors', async () => {
      const body = { debtorId: debtorA, amount: 5, paymentDate: '2024-04-02', source: 'panel' };
      const bad = await intake(tenant.portfolioIds[0], { ...body, source: 'api' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'validation_error', issues: [{ path: 'source', message: expect.stringContaining('source') }] });
      expect((await intake(tenant.portfolioIds[0], { ...body, externalId: 'x' })).status).toBe(400);
      expect((await intake(tenant.portfolioIds[0], { ...body, amount: 0 })).status).toBe(400);
      for (const [portfolioId, debtorId] of [
        [fixtureId('pf'), debtorA],
        ['not-an-id', debtorA],
        [tenant.portfolioIds[1], debtorA],
        [tenant.portfolioIds[0], otherDebtorId],
      ]) {
        const res = await intake(portfolioId, { ...body, debtorId });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });

    it('a demo portfolio records the payment but emits no event', async () => {
      const demo = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/portfolios`, { identityName: 'Demo', identityCurrency: ['EUR'], demo: true });
      const debtor = await sql((c) => insertDebtor(c, { portfolioId: demo.data.id }));
      const res = await intake(demo.data.id, { debtorId: debtor, amount: 7, paymentDate: '2024-04-03', source: 'panel' });
      expect(res.status).toBe(201);
      expect(await eventsFor(res.body.data.id)).toEqual([]);
    });
  });
});
