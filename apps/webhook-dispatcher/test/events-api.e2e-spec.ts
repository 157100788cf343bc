import { loadConfig } from '@dc/config';
import { Database } from '@dc/database';
import { createLogger } from '@dc/observability';
import { createTenant, eventually, insertDebtor, OperatorClient, Stack, Tenant, WebhookReceiver } from '@dc/testing';
import { Client } from 'pg';
import { ulid } from 'ulid';
import { Pruner } from '../src/pruning/pruner';
import { PruningRepository } from '../src/pruning/pruning.repository';
import { ISO, publicGet, publicPost, registerWebhook, sqlOn, startDispatcher, webhookStackEnv } from './webhook-kit';

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

interface Listed {
  data: { id: string; type: string; createdAt: string; livemode: boolean; portfolioId: string; data: Record<string, unknown> }[];
  pagination: { hasMore: boolean; limit: number; nextCursor: string | null };
}

/**
 * GET /v1/events and /v1/events/{id} (issue 37, docs/adr/0048): every event the key can reach with
 * the exact data of its webhook, the feed resumed `after` a stored id (each event once, none skipped
 * when a transaction commits late), filters and their 400s, 404s across organizations and outside a
 * restricted key, `eventId` in deliveries, and retention.
 */
describe('events API', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let other: Tenant;
  let receiver: WebhookReceiver;
  let debtor: string;
  let debtor2: string;
  const sql = () => sqlOn(stack);
  /** The API resources the first events carry, in the order they were written. */
  const written: { type: string; portfolioId: string; data: Record<string, unknown> }[] = [];

  const get = async (path: string, key = tenant.readKey) => {
    const res = await fetch(`${stack.publicUrl}/public/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as any, requestId: res.headers.get('x-request-id') };
  };
  const list = async (query: string, key = tenant.readKey): Promise<Listed> => publicGet(stack, key, `/events${query}`);
  /** Every page from `query`, following nextCursor with the same filters. */
  const all = async (query: string, key = tenant.readKey) => {
    const items: Listed['data'] = [];
    let cursor: string | null = null;
    do {
      const page: Listed = await list(`${query}${query ? '&' : '?'}limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
      items.push(...page.data);
      if (!page.pagination.hasMore) expect(page.pagination.nextCursor).toBeNull();
      cursor = page.pagination.nextCursor;
    } while (cursor);
    return items;
  };
  const payment = async (portfolioId: string, debtorId: string, externalId: string) => {
    const created = await publicPost(stack, tenant.key, '/payments', {
      externalId, portfolioId, debtorId, amount: 12.5, currency: 'EUR', paymentDate: '2026-11-01', method: 'card',
    });
    expect(created.status).toBe(201);
    return created.body.data as Record<string, unknown>;
  };
  const expectValidation = (res: { status: number; body: any; requestId: string | null }, path: string, message: string | RegExp) => {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code: 'validation_error', message: expect.stringMatching(message), requestId: res.requestId, issues: [{ message: expect.stringMatching(message), path }] },
    });
  };

  beforeAll(async () => {
    stack = await Stack.start({ env: webhookStackEnv() });
    operator = new OperatorClient(stack.operatorUrl);
    await startDispatcher(stack);
    tenant = await createTenant(operator, { name: 'Events', portfolios: 2 });
    other = await createTenant(operator, { name: 'Events Other' });
    receiver = await WebhookReceiver.start();
    await registerWebhook(operator, tenant.organizationId, { url: receiver.url });
    [debtor, debtor2] = await sql()(async (c) => [
      await insertDebtor(c, { portfolioId: tenant.portfolioIds[0] }),
      await insertDebtor(c, { portfolioId: tenant.portfolioIds[1] }),
    ]);
    const pf = tenant.portfolioIds[0];

    written.push({ type: 'payment.registered', portfolioId: pf, data: await payment(pf, debtor, 'evt-pay-1') });
    const promise = (await operator.expect(201, 'POST', `/portfolios/${pf}/promises`, { debtorId: debtor, amount: 30, promiseDate: '2026-12-01' })).data;
    written.push({ type: 'promise.created', portfolioId: pf, data: promise });
    const call = (await operator.expect(201, 'POST', `/portfolios/${pf}/calls`, { debtorId: debtor, direction: 'outbound', status: 'completed' })).data;
    const listedCall = (await publicGet(stack, tenant.readKey, `/calls?debtorId=${debtor}`)).data.find((c: { id: string }) => c.id === call.id);
    written.push({ type: 'call.completed', portfolioId: pf, data: listedCall });
    written.push({ type: 'payment.registered', portfolioId: tenant.portfolioIds[1], data: await payment(tenant.portfolioIds[1], debtor2, 'evt-pay-2') });
    await receiver.waitForCount(written.length, 15_000);
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it('lists each kind oldest first with exactly the data of its webhook delivery, and eventId names the listed event', async () => {
    const page = await list('?limit=100');
    expect(page.pagination).toEqual({ hasMore: false, limit: 100, nextCursor: null });
    expect(page.data).toEqual(
      written.map((w) => ({ id: expect.stringMatching(EVENT_ID), type: w.type, createdAt: ISO, livemode: true, portfolioId: w.portfolioId, data: w.data })),
    );
    for (const item of page.data) {
      expect(Object.keys(item)).toEqual(['id', 'type', 'createdAt', 'livemode', 'portfolioId', 'data']);
      const delivery = receiver.requests.find((r) => r.json().data.id === item.data.id);
      expect(delivery).toBeDefined();
      const body = delivery!.json();
      expect(body.eventId).toBe(item.id);
      expect(body.type).toBe(item.type);
      // The very bytes of data: the delivery's body holds the list item's data text.
      expect(delivery!.rawBody.toString('utf8')).toContain(`"data":${JSON.stringify(item.data)}`);
      expect((await get(`/events/${item.id}`)).body).toEqual({ data: item });
    }
  });

  it('filters by type, portfolio and creation time; a page cursor keeps them', async () => {
    const ids = (items: Listed['data']) => items.map((i) => i.data.id);
    expect(ids(await all('?type=payment.registered'))).toEqual([written[0].data.id, written[3].data.id]);
    expect(ids(await all('?type=promise.created,call.completed'))).toEqual([written[1].data.id, written[2].data.id]);
    expect(ids(await all(`?portfolioId=${tenant.portfolioIds[1]}`))).toEqual([written[3].data.id]);
    expect(ids(await all('?from=2020-01-01&to=2020-12-31'))).toEqual([]);
    expect(ids(await all(`?from=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`))).toEqual(written.map((w) => w.data.id));
    expect(ids(await all(`?portfolioId=${other.portfolioIds[0]}`))).toEqual([]);
  });

  it('answers 400 naming the parameter for an unknown type, a bad instant, and an after that is unknown, malformed or not the key\'s', async () => {
    expectValidation(await get('/events?type=payment.registered,payment.failed'), 'type', /type must be one or more of: payment.registered, promise.created, call.completed/);
    expectValidation(await get('/events?from=yesterday'), 'from', /from must be an ISO 8601 date/);
    const unknownAfter = /after must be the id of an event the key can read/;
    expectValidation(await get(`/events?after=evt_${ulid()}`), 'after', unknownAfter);
    expectValidation(await get('/events?after=pay_123'), 'after', unknownAfter);
    const mine = (await list('?limit=1')).data[0].id;
    expectValidation(await get(`/events?after=${mine}`, other.key), 'after', unknownAfter);
  });

  it('answers 404 for an event of another organization, outside a restricted key, or with a malformed id', async () => {
    const [first] = (await list('?limit=1')).data;
    const notFound = async (path: string, key: string) => {
      const res = await get(path, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'The event does not exist or is not visible to this API key.', requestId: res.requestId } });
    };
    await notFound(`/events/${first.id}`, other.key);
    await notFound('/events/evt_nope', tenant.readKey);
    const restricted = (await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, {
      name: 'second portfolio', portfolioIds: [tenant.portfolioIds[1]],
    })).data.key as string;
    await notFound(`/events/${first.id}`, restricted);
    expect((await all('', restricted)).map((i) => i.data.id)).toEqual([written[3].data.id]);
    expect((await all('', other.key))).toEqual([]);
  });

  it('resumed after a stored event id, lists exactly the events created since, once each, across pages', async () => {
    const before = await all('');
    const last = before[before.length - 1].id;
    expect((await list(`?after=${last}`)).data).toEqual([]);
    const added = [
      await payment(tenant.portfolioIds[0], debtor, 'evt-pay-3'),
      await payment(tenant.portfolioIds[1], debtor2, 'evt-pay-4'),
      await payment(tenant.portfolioIds[0], debtor, 'evt-pay-5'),
    ];
    // Listed once the relay has taken them (within a relay interval).
    let since: Listed['data'] = [];
    await eventually(async () => {
      since = await all(`?after=${last}`);
      expect(since.map((i) => i.data.id)).toEqual(added.map((p) => p.id));
    }, 15_000);
    // A filter and `after` together: the page's cursor carries both.
    expect((await all(`?after=${last}&portfolioId=${tenant.portfolioIds[0]}`)).map((i) => i.data.id)).toEqual([added[0].id, added[2].id]);
    expect((await list(`?after=${since[2].id}`)).data).toEqual([]);
    expect((await all('')).map((i) => i.id)).toEqual([...before, ...since].map((i) => i.id));
  });

  it('never skips an event whose transaction commits after a newer one: it is listed after it, whatever its id', async () => {
    // Every event so far delivered and listed: the state the client resumes from.
    await receiver.waitForCount(written.length + 3, 15_000);
    const last = (await all('')).at(-1)!.id;
    const slow = new Client({ connectionString: stack.databaseUrl });
    await slow.connect();
    try {
      // Writer A: an event written in a transaction that stays open (a write slow to commit).
      await slow.query('BEGIN');
      const slowEvent = `evt_${ulid()}`;
      // A payment's event as api-core writes it (the payment itself is not the subject here).
      const slowPayload = { ...written[0].data, id: `pay_${ulid()}`, externalId: 'written-first-committed-last' };
      await slow.query(
        `INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload) VALUES ($1, $2, $3, 'payment.registered', true, $4::json)`,
        [slowEvent, tenant.organizationId, tenant.portfolioIds[0], JSON.stringify(slowPayload)],
      );
      // Writer B: a payment through the API, committed while A is open.
      const fast = await payment(tenant.portfolioIds[0], debtor, 'evt-pay-fast');
      const delivered = await receiver.waitFor((r) => r.json().data.id === fast.id, 15_000, 'the fast payment');
      const fastEvent = delivered.json().eventId as string;
      expect(slowEvent < fastEvent).toBe(true); // A was written first: its id comes first
      // B is listed (and delivered) without waiting for A; a client processes it and stores its id.
      expect((await all(`?after=${last}`)).map((i) => i.id)).toEqual([fastEvent]);

      await slow.query('COMMIT');
      // A committed after B was read: it is listed after B, so resuming after B finds it.
      await eventually(async () => {
        const resumed = await all(`?after=${fastEvent}`);
        expect(resumed.map((i) => i.id)).toEqual([slowEvent]);
        expect(resumed[0].data).toEqual(slowPayload);
      }, 15_000);
      expect((await all(`?after=${last}`)).map((i) => i.id)).toEqual([fastEvent, slowEvent]);
    } finally {
      await slow.end();
    }
  });

  it('emits nothing for a demo portfolio', async () => {
    const demo = (await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/portfolios`, {
      identityName: 'Demo', identityCurrency: ['EUR'], demo: true,
    })).data.id as string;
    const demoDebtor = await sql()((c) => insertDebtor(c, { portfolioId: demo }));
    const last = (await all('')).at(-1)!.id;
    await operator.expect(201, 'POST', `/portfolios/${demo}/payments`, { debtorId: demoDebtor, amount: 5, paymentDate: '2026-11-02', source: 'panel' });
    expect((await list(`?after=${last}`)).data).toEqual([]);
  });

  it('drops events a month at a time past the retention (shortened to zero days, two months on): gone from the list, 404 by id, 400 as after', async () => {
    const [first] = (await list('?limit=1')).data;
    const database = new Database(stack.env.DATABASE_URL, 1);
    try {
      const config = loadConfig('webhook-dispatcher', {});
      const shortened = { ...config, webhooks: { ...config.webhooks, retentionDays: 0 } };
      // This month's events are dropped once the month has ended (the last test of this file: the
      // month's partitions are gone, its writes would fail).
      const pruner = new Pruner(new PruningRepository(database), shortened, createLogger('test', 'silent'));
      expect((await pruner.run()).dropped).not.toContain(expect.stringMatching(/^outbox_events_p\d/));
      expect((await list('?limit=1')).data).toEqual([first]);
      const { dropped } = await pruner.run(Date.now() + 62 * 86_400_000);
      expect(dropped).toEqual(expect.arrayContaining([expect.stringMatching(/^outbox_events_p\d{6}$/)]));
    } finally {
      await database.close();
    }
    expect((await list('?limit=100')).data).toEqual([]);
    expect((await get(`/events/${first.id}`)).status).toBe(404);
    expectValidation(await get(`/events?after=${first.id}`), 'after', /after must be the id of an event the key can read/);
  });
});
