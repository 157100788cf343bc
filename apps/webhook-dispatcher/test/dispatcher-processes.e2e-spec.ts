import { createTenant, eventually, fixtureId, insertDebtor, OPERATOR_TOKEN, OperatorClient, ServiceProcess, Stack, Tenant, WebhookReceiver } from '@dc/testing';
import {
  DELIVERY_ID, DeliveryView, forResource, listDeliveries, registerWebhook, sqlOn, startDispatcher, stripeVerify, webhookStackEnv,
} from './webhook-kit';

const RETRY_DELAY_MS = 1500;

/**
 * docs/adr/0020: kill -9 of the dispatcher mid-series loses nothing and sends no new id;
 * two dispatchers deliver each event once; SSRF refusals at delivery time for hosts that resolve
 * to 127.0.0.1 (the address table itself is unit-tested in libs/webhooks).
 * The tests of this file run in order, each starting the dispatcher processes it needs and
 * stopping them at its end, so no other dispatcher shares the queue.
 */
describe('dispatcher processes: crash recovery, replicas, SSRF at delivery time', () => {
  let stack: Stack;
  let operator: OperatorClient;
  const receivers: WebhookReceiver[] = [];
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ env: webhookStackEnv({ WEBHOOK_RETRY_DELAY_MS: String(RETRY_DELAY_MS), WEBHOOK_RETRY_JITTER_MS: '0' }) });
    operator = new OperatorClient(stack.operatorUrl);
  });
  // Whatever a test leaves running (a failed one too) must not take the next test's jobs.
  afterEach(() => stopAll());
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };
  const dispatcher = async (env: Record<string, string> = {}) => {
    const d = await startDispatcher(stack, env);
    running.push(d);
    return d;
  };
  const stopAll = async () => {
    await Promise.all(running.splice(0).map((d) => d.stop('SIGTERM')));
  };

  /** A sample of one dispatcher process's Prometheus metrics (GET /metrics on its health port). */
  async function metric(process: ServiceProcess, sample: string): Promise<number> {
    const ready = await process.waitForLog((l) => l.msg === 'webhook-dispatcher ready');
    const url = `http://127.0.0.1:${String(ready.healthPort)}/metrics`;
    // Behind the operator (or metrics) token, like the gateway's.
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const res = await fetch(url, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(res.status).toBe(200);
    const line = (await res.text()).split('\n').find((l) => l.startsWith(`${sample} `));
    expect(line).toBeDefined();
    return Number(line!.slice(sample.length + 1));
  }
  const succeededCount = (process: ServiceProcess) => metric(process, 'webhook_deliveries_total{outcome="succeeded"}');

  async function tenantWithDebtor(name: string): Promise<{ tenant: Tenant; pay: (amount?: number) => Promise<{ id: string }> }> {
    const tenant = await createTenant(operator, { name });
    const pf = tenant.portfolioIds[0];
    const debtor = await sqlOn(stack)((c) => insertDebtor(c, { portfolioId: pf }));
    const pay = async (amount = 5) =>
      (await operator.expect(201, 'POST', `/portfolios/${pf}/payments`, { debtorId: debtor, amount, paymentDate: '2026-03-01', source: 'panel' })).data as { id: string };
    return { tenant, pay };
  }

  it('kill -9 mid-series: a new dispatcher continues the series with the same delivery id, never above 5 attempts, and succeeds', async () => {
    const r = (await receiver()).answerAlways({ status: 500 });
    const { tenant, pay } = await tenantWithDebtor('Crash Org');
    const hook = await registerWebhook(operator, tenant.organizationId, { url: r.url });
    const first = await dispatcher();
    const failing = await pay(11);
    await r.waitForCount(2, 10_000);
    // The second failure is recorded and the third attempt scheduled: kill while the series waits.
    let before: DeliveryView | undefined;
    await eventually(async () => {
      const log = await listDeliveries(operator, hook.id);
      expect(log).toHaveLength(1);
      expect(log[0]).toEqual(expect.objectContaining({ status: 'pending', attemptCount: 2 }));
      expect(log[0].nextAttemptAt).not.toBeNull();
      before = log[0];
      // ... and its job is back in the queue as a delayed one, none active.
      expect(await metric(first, 'queue_jobs{queue="webhook-deliveries",state="delayed"}')).toBe(1);
      expect(await metric(first, 'queue_jobs{queue="webhook-deliveries",state="active"}')).toBe(0);
    });
    await first.stop('SIGKILL');
    running.splice(running.indexOf(first), 1);
    expect(r.requests).toHaveLength(2);

    // While no dispatcher runs, another event is written. The interrupted delivery will fail once
    // more (its third attempt), then be accepted; the other one is accepted at once.
    const whileDown = await pay(12);
    const isFailing = forResource('payment.registered', failing.id);
    r.answerAlways((req) => (isFailing(req) && r.requests.filter(isFailing).length < 3 ? { status: 500 } : { status: 200 }));
    await dispatcher();

    await eventually(async () => {
      const log = await listDeliveries(operator, hook.id);
      expect(log.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    }, 20_000);
    const log = await listDeliveries(operator, hook.id);
    const series = log.find((d) => d.id === before!.id)!;
    expect(series).toEqual(expect.objectContaining({ id: before!.id, eventId: before!.eventId, status: 'succeeded', series: 1 }));
    // Killed between attempts 2 and 3: nothing was in flight, so exactly attempts 3 (500) and 4 (200) follow.
    expect(series.attemptCount).toBe(4);
    expect(series.attempts.map((a) => [a.number, a.series, a.statusCode])).toEqual([[1, 1, 500], [2, 1, 500], [3, 1, 500], [4, 1, 200]]);

    const forFailing = r.requests.filter(forResource('payment.registered', failing.id));
    expect(forFailing).toHaveLength(4);
    expect(new Set(forFailing.map((req) => stripeVerify(req, hook.secret).id))).toEqual(new Set([before!.id]));
    expect(forFailing.at(-1)!.json().id).toBe(before!.id);
    const forDown = r.requests.filter(forResource('payment.registered', whileDown.id));
    expect(forDown.map((req) => req.json().id)).toEqual([expect.stringMatching(DELIVERY_ID)]);
    // One delivery per event, no new id for the interrupted one.
    expect(log).toHaveLength(2);
    expect(new Set(log.map((d) => d.eventId)).size).toBe(2);
    expect(new Set(r.requests.map((req) => req.json().id))).toEqual(new Set(log.map((d) => d.id)));

    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS + 300)); // nothing more after success
    expect(r.requests.filter(forResource('payment.registered', failing.id))).toHaveLength(forFailing.length);
  });

  it('two dispatcher processes: each of 200 events is delivered exactly once', async () => {
    const N = 200;
    const r = (await receiver()).answerAlways({ status: 200, delayMs: 10 });
    const { tenant, pay } = await tenantWithDebtor('Replica Org');
    const hook = await registerWebhook(operator, tenant.organizationId, { url: r.url });
    const [a, b] = await Promise.all([dispatcher(), dispatcher()]);

    // One payment through the API; the other N - 1 events are its outbox row cloned by SQL (another
    // payment id each), in four transactions while both dispatchers poll: a backlog that both relays
    // claim from at once, written in milliseconds instead of N API round trips.
    const real = await pay(1);
    const paymentIds = [real.id];
    await sqlOn(stack)(async (c) => {
      const [row] = (await c.query(`SELECT organization_id, portfolio_id, type, livemode, payload FROM outbox_events WHERE payload->>'id' = $1`, [real.id])).rows;
      expect(row).toEqual(expect.objectContaining({ organization_id: tenant.organizationId, type: 'payment.registered', livemode: true }));
      for (let chunk = 0; chunk < 4; chunk += 1) {
        const ids = Array.from({ length: chunk < 3 ? 50 : N - 151 }, () => fixtureId('pay'));
        const events = ids.map(() => fixtureId('evt'));
        const payloads = ids.map((id) => JSON.stringify({ ...row.payload, id }));
        await c.query(
          `INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload)
           SELECT e, $2, $3, $4, $5, p::json FROM unnest($1::text[], $6::text[]) AS u(e, p)`,
          [events, row.organization_id, row.portfolio_id, row.type, row.livemode, payloads],
        );
        paymentIds.push(...ids);
      }
    });
    expect(new Set(paymentIds).size).toBe(N);
    await r.waitForCount(N, 30_000);
    await eventually(async () => {
      const log = await listDeliveries(operator, hook.id);
      expect(log.filter((d) => d.status === 'succeeded')).toHaveLength(N);
    }, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500)); // a bounded window for any duplicate

    expect(r.requests).toHaveLength(N);
    const bodies = r.requests.map((req) => stripeVerify(req, hook.secret));
    expect(new Set(bodies.map((body) => body.id)).size).toBe(N);
    expect(bodies.map((body) => body.data.id).sort()).toEqual([...paymentIds].sort());
    const log = await listDeliveries(operator, hook.id);
    expect(log).toHaveLength(N);
    expect(log.every((d) => d.attemptCount === 1 && d.attempts.length === 1)).toBe(true);
    expect(new Set(log.map((d) => d.id))).toEqual(new Set(bodies.map((body) => body.id)));
    // Each process counts the deliveries it completed (GET /metrics on its health port): both did
    // some of the work, and together exactly N.
    const [byA, byB] = [await succeededCount(a), await succeededCount(b)];
    expect(byA + byB).toBe(N);
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
  });

  it('a receiver that never answers does not hold up deliveries to another receiver', async () => {
    // 8 attempts at once in this process; a webhook that hangs must not take them all for 5 s.
    await dispatcher({ WEBHOOK_CONCURRENCY: '8', WEBHOOK_ATTEMPT_TIMEOUT_MS: '5000' });
    const [hung, fast] = [(await receiver()).answerAlways('hang'), await receiver()];
    const slow = await tenantWithDebtor('Hanging Org');
    const quick = await tenantWithDebtor('Quick Org');
    await registerWebhook(operator, slow.tenant.organizationId, { url: hung.url });
    await registerWebhook(operator, quick.tenant.organizationId, { url: fast.url });
    for (let i = 0; i < 12; i += 1) await slow.pay(i + 1);
    await hung.waitForCount(4, 5_000); // attempts to it are in flight (as many as it is allowed)
    const written = Date.now();
    const payment = await quick.pay();
    const req = await fast.waitFor(forResource('payment.registered', payment.id), 6_000);
    expect(req.receivedAt - written).toBeLessThan(2_000);
    // The hanging receiver was still holding its attempts (none has timed out yet), and never more
    // than its cap (a tenth of 8, at least 4), even though 8 of its jobs could start at once.
    expect(Date.now() - hung.requests[0].receivedAt).toBeLessThan(5_000);
    expect(hung.requests).toHaveLength(4);
    await hung.close(); // the held attempts end at once, so the graceful stop need not wait for their timeout
  });

  it('SSRF at delivery time: without the flag, hosts resolving to loopback and plain http are refused before any connection', async () => {
    const r = await receiver();
    const { tenant, pay } = await tenantWithDebtor('SSRF Org');
    // Registration happens through api-core, which runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true.
    const cases = [
      { url: `https://localhost:${r.port}/`, errorClass: 'refused_address', address: /^(127\.0\.0\.1|::1)$/ },
      { url: `https://127.0.0.1:${r.port}/`, errorClass: 'refused_address', address: /^127\.0\.0\.1$/ },
      { url: `https://[::ffff:7f00:1]:${r.port}/`, errorClass: 'refused_address', address: /^::ffff:(7f00:1|127\.0\.0\.1)$/ },
      { url: `http://127.0.0.1:${r.port}/`, errorClass: 'refused_scheme', address: null },
    ];
    const hooks = [];
    for (const c of cases) hooks.push({ ...c, hook: await registerWebhook(operator, tenant.organizationId, { url: c.url }) });
    await dispatcher({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    await pay();

    for (const { hook, errorClass, address } of hooks) {
      let delivery: DeliveryView | undefined;
      await eventually(async () => {
        const log = await listDeliveries(operator, hook.id);
        expect(log).toHaveLength(1);
        expect(log[0].attempts.length).toBeGreaterThanOrEqual(1);
        delivery = log[0];
      }, 10_000);
      expect(delivery!.attempts[0]).toEqual(expect.objectContaining({
        number: 1, series: 1, statusCode: null, errorClass, ...(address === null ? {} : { address: expect.stringMatching(address) }),
      }));
    }
    expect(r.connections).toBe(0);
    expect(r.requests).toHaveLength(0);
  });
});
