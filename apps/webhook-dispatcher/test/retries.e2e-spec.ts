import { createTenant, eventually, insertDebtor, OperatorClient, ReceivedRequest, Stack, WebhookReceiver } from '@dc/testing';
import {
  DELIVERY_ID, DeliveryView, ISO, listDeliveries, registerWebhook, signatureTime, sqlOn, startDispatcher, stripeVerify,
  webhookStackEnv,
} from './webhook-kit';

const RETRY_DELAY_MS = 1100; // t is in seconds: retries this far apart must carry a larger t
const ATTEMPT_TIMEOUT_MS = 500;

/**
 * docs/adr/0020: retries with one delivery id and a fresh `t`; 3xx (never followed),
 * connection errors and the timeout as failures; no sixth attempt; every attempt recorded; an
 * operator's redelivery as a new series with the same id.
 * Spec: Events, Delivery 6; README, Operator API (deliveries, redeliver).
 *
 * The scenarios take several retry delays each and are independent (an organization each), so they
 * all start in beforeAll and run at the same time; each test awaits and checks its own.
 */
describe('webhook delivery outcomes: retries, redirects, timeouts, redelivery', () => {
  let stack: Stack;
  let operator: OperatorClient;
  const receivers: WebhookReceiver[] = [];

  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };

  /** An organization of its own with one webhook to `url`, and a way to cause one payment.registered. */
  async function scenario(url: string) {
    const tenant = await createTenant(operator, { name: `Org ${url}` });
    const pf = tenant.portfolioIds[0];
    const debtor = await sqlOn(stack)((c) => insertDebtor(c, { portfolioId: pf }));
    const hook = await registerWebhook(operator, tenant.organizationId, { url });
    const pay = async () =>
      (await operator.expect(201, 'POST', `/portfolios/${pf}/payments`, { debtorId: debtor, amount: 5, paymentDate: '2026-02-01', source: 'panel' })).data as { id: string };
    return { tenant, hook, pay };
  }

  /** The only delivery of a webhook, once `check` holds for it. */
  async function deliveryOnce(webhookId: string, check: (d: DeliveryView) => void, timeoutMs = 5_000): Promise<DeliveryView> {
    let delivery: DeliveryView | undefined;
    await eventually(async () => {
      const log = await listDeliveries(operator, webhookId);
      expect(log).toHaveLength(1);
      delivery = log[0];
      check(delivery);
    }, timeoutMs);
    return delivery!;
  }

  const gaps = (requests: ReceivedRequest[]) => requests.slice(1).map((r, i) => r.receivedAt - requests[i].receivedAt);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** 500, 500, then 200. */
  async function recovering() {
    const r = (await receiver()).answerNext({ status: 500, body: 'boom' }, { status: 500 }).answerAlways({ status: 200, body: 'ok' });
    const { hook, pay } = await scenario(r.url);
    const payment = await pay();
    const requests = await r.waitForCount(3, 10_000);
    const delivery = await deliveryOnce(hook.id, (d) => expect(d.status).toBe('succeeded'));
    await pause(RETRY_DELAY_MS + 400); // a bounded window longer than a retry delay
    return { r, hook, payment, requests, delivery, countAfterWindow: r.requests.length };
  }

  /** Always 302 with a Location to another receiver. */
  async function redirecting() {
    const target = await receiver();
    const r = (await receiver()).answerAlways({ status: 302, headers: { location: target.url }, body: '' });
    const { hook, pay } = await scenario(r.url);
    await pay();
    const requests = await r.waitForCount(5, 15_000);
    const failed = await deliveryOnce(hook.id, (d) => expect(d.status).toBe('failed'));
    await pause(RETRY_DELAY_MS + 700); // past another retry delay
    return { r, target, hook, requests, failed, countAfterWindow: r.requests.length, logAfterWindow: await listDeliveries(operator, hook.id) };
  }

  /** Never answers. */
  async function hanging() {
    const r = (await receiver()).answerAlways('hang');
    const { hook, pay } = await scenario(r.url);
    await pay();
    const [first] = await r.waitForCount(1);
    const pending = await deliveryOnce(hook.id, (d) => expect(d.attempts).toHaveLength(1));
    const conflict = await operator.request('POST', `/deliveries/${pending.id}/redeliver`);
    const [, second] = await r.waitForCount(2, 5_000);
    const retried = await deliveryOnce(hook.id, (d) => expect(d.attempts).toHaveLength(2));
    return { first, second, pending, conflict, retried };
  }

  /** Nothing listens on the port. */
  async function refusing() {
    const closed = await WebhookReceiver.start();
    const url = closed.url;
    await closed.close();
    const { hook, pay } = await scenario(url);
    await pay();
    return deliveryOnce(hook.id, (d) => expect(d.attempts.length).toBeGreaterThanOrEqual(1));
  }

  let runs: {
    recovering: Promise<Awaited<ReturnType<typeof recovering>>>;
    redirecting: Promise<Awaited<ReturnType<typeof redirecting>>>;
    hanging: Promise<Awaited<ReturnType<typeof hanging>>>;
    refusing: Promise<DeliveryView>;
  };

  beforeAll(async () => {
    stack = await Stack.start({
      env: webhookStackEnv({
        WEBHOOK_RETRY_DELAY_MS: String(RETRY_DELAY_MS),
        WEBHOOK_RETRY_JITTER_MS: '0',
        WEBHOOK_ATTEMPT_TIMEOUT_MS: String(ATTEMPT_TIMEOUT_MS),
        WEBHOOK_MAX_ATTEMPTS: '5',
      }),
    });
    operator = new OperatorClient(stack.operatorUrl);
    await startDispatcher(stack);
    runs = { recovering: recovering(), redirecting: redirecting(), hanging: hanging(), refusing: refusing() };
    // Each test awaits its own; a failure must not also surface as an unhandled rejection.
    for (const run of Object.values(runs)) (run as Promise<unknown>).catch(() => undefined);
  });
  afterAll(async () => {
    await Promise.allSettled(Object.values(runs ?? {}));
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  it('500, 500, then 200: three attempts, one delivery id, a fresh t each time, succeeded with every attempt recorded', async () => {
    const { hook, payment, requests, delivery, countAfterWindow } = await runs.recovering;
    const bodies = requests.map((req) => stripeVerify(req, hook.secret));
    expect(bodies[0]).toEqual({
      id: expect.stringMatching(DELIVERY_ID), eventId: delivery.eventId, type: 'payment.registered', createdAt: ISO, livemode: true,
      data: expect.objectContaining({ id: payment.id }),
    });
    expect(bodies.map((b) => b.id)).toEqual([bodies[0].id, bodies[0].id, bodies[0].id]);
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    const ts = requests.map(signatureTime);
    expect(ts[1]).toBeGreaterThan(ts[0]);
    expect(ts[2]).toBeGreaterThan(ts[1]);
    for (const gap of gaps(requests)) expect(gap).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 100);
    expect(requests.map((req) => req.header('x-service-event'))).toEqual(['payment.registered', 'payment.registered', 'payment.registered']);

    expect(delivery).toEqual({
      id: bodies[0].id,
      webhookId: hook.id,
      eventId: expect.stringMatching(/^evt_/),
      type: 'payment.registered',
      status: 'succeeded',
      attemptCount: 3,
      series: 1,
      nextAttemptAt: null,
      createdAt: ISO,
      completedAt: ISO,
      attempts: [
        expect.objectContaining({ number: 1, series: 1, createdAt: ISO, statusCode: 500, errorClass: 'http_status', address: '127.0.0.1', durationMs: expect.any(Number) }),
        expect.objectContaining({ number: 2, series: 1, createdAt: ISO, statusCode: 500, errorClass: 'http_status', address: '127.0.0.1', durationMs: expect.any(Number) }),
        { number: 3, series: 1, createdAt: ISO, statusCode: 200, errorClass: null, error: null, address: '127.0.0.1', durationMs: expect.any(Number) },
      ],
    });
    expect(Date.parse(delivery.attempts[1].createdAt) - Date.parse(delivery.attempts[0].createdAt)).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 100);
    // Nothing more came after the success.
    expect(countAfterWindow).toBe(3);
  });

  describe('a receiver that always answers 302', () => {
    let result: Awaited<ReturnType<typeof redirecting>>;

    it('fails after exactly 5 attempts, about the retry delay apart, never following Location; no sixth attempt', async () => {
      result = await runs.redirecting;
      const { hook, requests, failed, target, countAfterWindow, logAfterWindow } = result;
      expect(failed).toEqual({
        id: expect.stringMatching(DELIVERY_ID),
        webhookId: hook.id,
        eventId: expect.stringMatching(/^evt_/),
        type: 'payment.registered',
        status: 'failed',
        attemptCount: 5,
        series: 1,
        nextAttemptAt: null,
        createdAt: ISO,
        completedAt: ISO,
        attempts: [1, 2, 3, 4, 5].map((number) =>
          expect.objectContaining({ number, series: 1, statusCode: 302, errorClass: 'http_status', address: '127.0.0.1' })),
      });
      expect(new Set(requests.map((req) => req.json().id))).toEqual(new Set([failed.id]));
      for (const req of requests) expect(stripeVerify(req, hook.secret).id).toBe(failed.id);
      for (const gap of gaps(requests)) expect(gap).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 100);
      // Past another retry delay: still five, and the redirect target never saw a connection.
      expect(countAfterWindow).toBe(5);
      expect(target.connections).toBe(0);
      expect(logAfterWindow).toEqual([failed]);
    });

    it('POST /deliveries/{id}/redeliver → 202: a new series with the same delivery id, recorded as series 2', async () => {
      expect(result).toBeDefined();
      const { r, hook, failed, target } = result;
      r.answerAlways({ status: 204 });
      const arrival = r.next(1);
      const res = await operator.request('POST', `/deliveries/${failed.id}/redeliver`);
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual(expect.objectContaining({ id: failed.id, webhookId: hook.id, series: 2 }));
      const [req] = await arrival;
      const body = stripeVerify(req, hook.secret);
      expect(body.id).toBe(failed.id);
      // A redelivery names the same event.
      expect(body.eventId).toBe(failed.eventId);
      expect(body.eventId).toBe(r.requests[0].json().eventId);
      expect(signatureTime(req)).toBeGreaterThan(signatureTime(r.requests[4]));
      const delivery = await deliveryOnce(hook.id, (d) => expect(d.status).toBe('succeeded'));
      expect(delivery).toEqual(expect.objectContaining({ id: failed.id, status: 'succeeded', series: 2, attemptCount: 6, nextAttemptAt: null, completedAt: ISO }));
      expect(delivery.attempts.map((a) => [a.number, a.series, a.statusCode])).toEqual([[1, 1, 302], [2, 1, 302], [3, 1, 302], [4, 1, 302], [5, 1, 302], [6, 2, 204]]);
      expect(delivery.attempts[5]).toEqual(expect.objectContaining({ errorClass: null, error: null }));
      expect(r.requests).toHaveLength(6);
      expect(target.connections).toBe(0);
    });
  });

  it('a receiver that never answers: the attempt times out (errorClass timeout) and is retried; redelivery of a pending delivery is 409', async () => {
    const { first, second, pending, conflict, retried } = await runs.hanging;
    expect(pending).toEqual(expect.objectContaining({ status: 'pending', attemptCount: 1, series: 1, nextAttemptAt: ISO, completedAt: null }));
    expect(pending.attempts[0]).toEqual(expect.objectContaining({ number: 1, series: 1, statusCode: null, errorClass: 'timeout', address: '127.0.0.1' }));
    expect(pending.attempts[0].durationMs).toBeGreaterThanOrEqual(ATTEMPT_TIMEOUT_MS - 50);
    expect(pending.attempts[0].durationMs).toBeLessThan(ATTEMPT_TIMEOUT_MS + 1_500);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
    expect(second.json().id).toBe(first.json().id);
    expect(retried.attempts.map((a) => [a.number, a.errorClass])).toEqual([[1, 'timeout'], [2, 'timeout']]);
  });

  it('a connection error is a failure recorded as errorClass connection', async () => {
    const delivery = await runs.refusing;
    expect(delivery.attempts[0]).toEqual(expect.objectContaining({ number: 1, statusCode: null, errorClass: 'connection', address: '127.0.0.1' }));
    expect(delivery.status).toBe('pending');
  });

  it('redelivery of an unknown delivery is 404', async () => {
    const res = await operator.request('POST', '/deliveries/dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV/redeliver');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
