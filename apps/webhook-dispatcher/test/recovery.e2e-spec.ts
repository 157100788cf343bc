import type { WebhookView } from '@dc/contracts';
import { createTenant, eventually, insertDebtor, JsonResponse, OPERATOR_TOKEN, OperatorClient, ServiceProcess, Stack, WebhookReceiver } from '@dc/testing';
import { DeliveryView, forResource, ISO, listDeliveries, registerWebhook, sqlOn, startDispatcher, stripeVerify, webhookStackEnv } from './webhook-kit';

const RETRY_DELAY_MS = 300;
/** The shortened period of automatic disabling (WEBHOOK_DISABLE_AFTER_SECONDS) of the second dispatcher. */
const DISABLE_AFTER_SECONDS = 6;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pauseUntil = (ms: number) => pause(Math.max(0, ms - Date.now()));

/**
 * docs/adr/0048; README, Operator API (webhooks): recovery of failed deliveries
 * (POST /operator/v1/webhooks/{id}/recover re-sends, as a new series under the same ids, exactly the
 * deliveries that ended failed in the window) and automatic disabling of a webhook whose every attempt
 * has failed for WEBHOOK_DISABLE_AFTER_DAYS (shortened here to seconds). Two attempts per series,
 * 300 ms apart. The blocks run in order, each with its own dispatcher process: the first with the
 * default period (5 days, so nothing of it is disabled), the second with 6 seconds.
 */
describe('webhook recovery and automatic disabling', () => {
  let stack: Stack;
  let operator: OperatorClient;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    stack = await Stack.start({
      env: webhookStackEnv({ WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_RETRY_DELAY_MS: String(RETRY_DELAY_MS), WEBHOOK_RETRY_JITTER_MS: '0' }),
    });
    operator = new OperatorClient(stack.operatorUrl);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };

  /** An organization of its own with a debtor; `pay` writes one payment.registered. */
  async function tenantWithDebtor(name: string) {
    const tenant = await createTenant(operator, { name });
    const pf = tenant.portfolioIds[0];
    const debtor = await sqlOn(stack)((c) => insertDebtor(c, { portfolioId: pf }));
    const pay = async (amount: number) =>
      (await operator.expect(201, 'POST', `/portfolios/${pf}/payments`, { debtorId: debtor, amount, paymentDate: '2026-02-01', source: 'panel' })).data as { id: string };
    return { tenant, pay };
  }

  /** The webhook as the operator list shows it. */
  async function viewOf(organizationId: string, webhookId: string): Promise<WebhookView> {
    const list = await operator.expect<{ data: WebhookView[] }>(200, 'GET', `/organizations/${organizationId}/webhooks?limit=100`);
    const view = list.data.find((w) => w.id === webhookId);
    if (!view) throw new Error(`webhook ${webhookId} is not listed`);
    return view;
  }

  /** The exact error envelope of a refusal. */
  function expectError(res: JsonResponse, status: number, code: string, message: string, issues?: { path: string; message: string }[]) {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { code, message, requestId: res.headers.get('x-request-id'), ...(issues ? { issues } : {}) } });
  }

  const recover = (webhookId: string, body: unknown) => operator.request('POST', `/webhooks/${webhookId}/recover`, body);
  const attemptsOf = (d: DeliveryView) => d.attempts.map((a) => [a.number, a.series, a.statusCode]);

  describe('POST /webhooks/{id}/recover', () => {
    let dispatcher: ServiceProcess;
    const hooks: { organizationId: string; id: string }[] = [];

    beforeAll(async () => {
      dispatcher = await startDispatcher(stack);
    });
    // Nothing of this block may be left failing for the next block's dispatcher to disable.
    afterAll(async () => {
      await dispatcher?.stop();
      for (const hook of hooks) await operator.request('DELETE', `/webhooks/${hook.id}`);
    });

    it('re-sends exactly the deliveries that ended failed in [since, until), as series 2 under their ids; nothing else', async () => {
      const r = (await receiver()).answerAlways({ status: 500 });
      const { tenant, pay } = await tenantWithDebtor('Recovery Org');
      const hook = await registerWebhook(operator, tenant.organizationId, { url: r.url });
      hooks.push({ organizationId: tenant.organizationId, id: hook.id });
      const log = async () => new Map((await listDeliveries(operator, hook.id)).map((d) => [d.id, d]));
      /** The delivery id of a payment's event, from the first request the receiver got for it. */
      const deliveryOf = async (payment: { id: string }) => (await r.waitFor(forResource('payment.registered', payment.id))).json<{ id: string }>().id;
      const settled = async (ids: string[], status: string) =>
        eventually(async () => {
          const now = await log();
          for (const id of ids) expect(now.get(id)?.status).toBe(status);
        }, 10_000);

      // d1 fails (then, by SQL, an hour ago: before the window); dS succeeds; d2 and d3 fail in the window.
      const d1 = await deliveryOf(await pay(1));
      await settled([d1], 'failed');
      r.answerAlways({ status: 200 });
      const dS = await deliveryOf(await pay(2));
      await settled([dS], 'succeeded');
      r.answerAlways({ status: 500 });
      const [p2, p3] = [await pay(3), await pay(4)];
      const [d2, d3] = [await deliveryOf(p2), await deliveryOf(p3)];
      await settled([d2, d3], 'failed');
      await pause(50);
      const until = new Date();
      await pause(50);
      // d4 fails after the window's end.
      const d4 = await deliveryOf(await pay(5));
      await settled([d4], 'failed');
      await sqlOn(stack)((c) => c.query(`UPDATE webhook_deliveries SET completed_at = completed_at - interval '1 hour' WHERE id = $1`, [d1]));
      const before = await log();
      expect((await viewOf(tenant.organizationId, hook.id)).failingSince).toEqual(ISO);

      r.answerAlways({ status: 204 });
      const since = new Date(Date.now() - 30 * 60_000);
      const countBefore = r.requests.length;
      const arrivals = r.next(2, 10_000);
      const res = await recover(hook.id, { since: since.toISOString(), until: until.toISOString() });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ data: { webhookId: hook.id, recovered: 2, since: since.toISOString(), until: until.toISOString() } });

      // The receiver gets d2 and d3 again, signed, under their own ids; nothing else.
      const resent = await arrivals;
      expect(resent.map((req) => stripeVerify(req, hook.secret).id).sort()).toEqual([d2, d3].sort());
      await settled([d2, d3], 'succeeded');
      await pause(RETRY_DELAY_MS * 3);
      expect(r.requests).toHaveLength(countBefore + 2);

      const after = await log();
      for (const id of [d2, d3]) {
        expect(after.get(id)).toEqual({
          ...before.get(id),
          status: 'succeeded',
          series: 2,
          attemptCount: 3,
          nextAttemptAt: null,
          completedAt: ISO,
          attempts: [...before.get(id)!.attempts, expect.objectContaining({ number: 3, series: 2, statusCode: 204, errorClass: null, error: null })],
        });
        expect(attemptsOf(after.get(id)!)).toEqual([[1, 1, 500], [2, 1, 500], [3, 2, 204]]);
      }
      // Outside the window (d1 before it, d4 after it) or not failed (dS): untouched.
      for (const id of [d1, d4, dS]) expect(after.get(id)).toEqual(before.get(id));
      expect(after.get(d1)).toEqual(expect.objectContaining({ status: 'failed', series: 1, attemptCount: 2 }));
      expect(after.get(dS)).toEqual(expect.objectContaining({ status: 'succeeded', series: 1, attemptCount: 1 }));
      expect(after.size).toBe(5);
      // The successes cleared the webhook's failingSince.
      expect(await viewOf(tenant.organizationId, hook.id)).toMatchObject({ enabled: true, failingSince: null, disabledAt: null, disabledReason: null });

      // The same window again: nothing left failed in it.
      const again = await recover(hook.id, { since: since.toISOString(), until: until.toISOString() });
      expect(again.status).toBe(202);
      expect(again.body.data).toEqual({ webhookId: hook.id, recovered: 0, since: since.toISOString(), until: until.toISOString() });
      // Without until: up to now (the answer names it), here d1 (an hour ago) and d4.
      const sinceEarlier = new Date(Date.now() - 2 * 3_600_000);
      const asked = Date.now();
      const open = await recover(hook.id, { since: sinceEarlier.toISOString() });
      expect(open.status).toBe(202);
      expect(open.body.data).toEqual({ webhookId: hook.id, recovered: 2, since: sinceEarlier.toISOString(), until: ISO });
      expect(Date.parse(open.body.data.until)).toBeGreaterThanOrEqual(asked - 1_000);
      await settled([d1, d4], 'succeeded');
      const last = await log();
      expect(attemptsOf(last.get(d1)!)).toEqual([[1, 1, 500], [2, 1, 500], [3, 2, 204]]);
      expect(attemptsOf(last.get(d4)!)).toEqual([[1, 1, 500], [2, 1, 500], [3, 2, 204]]);
      expect(last.get(dS)).toEqual(before.get(dS));
    }, 60_000);

    it('404 for an unknown, malformed or deleted webhook; 409 invalid_state_transition for a disabled one', async () => {
      const notFound = 'The webhook does not exist or is not visible to this API key.';
      const since = new Date(Date.now() - 3_600_000).toISOString();
      expectError(await recover('whk_01ARZ3NDEKTSV4RRFFQ69G5FAV', { since }), 404, 'not_found', notFound);
      expectError(await recover('whk_nope', { since }), 404, 'not_found', notFound);

      const { tenant } = await tenantWithDebtor('Recovery Refusals Org');
      const r = await receiver();
      const deleted = await registerWebhook(operator, tenant.organizationId, { url: r.url });
      await operator.expect(204, 'DELETE', `/webhooks/${deleted.id}`);
      expectError(await recover(deleted.id, { since }), 404, 'not_found', notFound);

      const disabled = await registerWebhook(operator, tenant.organizationId, { url: r.url });
      hooks.push({ organizationId: tenant.organizationId, id: disabled.id });
      await operator.expect(200, 'PATCH', `/webhooks/${disabled.id}`, { enabled: false });
      expectError(await recover(disabled.id, { since }), 409, 'invalid_state_transition',
        `webhook ${disabled.id} is disabled: enable it before recovering its deliveries`);
    });

    it('400 validation_error for a missing or unparseable since or until, an unknown field, since not before until, a window in the future', async () => {
      const { tenant } = await tenantWithDebtor('Recovery Validation Org');
      const hook = await registerWebhook(operator, tenant.organizationId, { url: (await receiver()).url });
      hooks.push({ organizationId: tenant.organizationId, id: hook.id });
      const invalid = (res: JsonResponse, path: string, message: string) => expectError(res, 400, 'validation_error', message, [{ path, message }]);
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();

      invalid(await recover(hook.id, {}), 'since', 'since must be an ISO 8601 date-time');
      invalid(await recover(hook.id, undefined), 'since', 'since must be an ISO 8601 date-time');
      invalid(await recover(hook.id, { since: 'yesterday' }), 'since', 'since must be an ISO 8601 date-time');
      invalid(await recover(hook.id, { since: 1_700_000_000 }), 'since', 'since must be an ISO 8601 date-time');
      invalid(await recover(hook.id, { since: hourAgo, until: '2026-13-01T00:00:00Z' }), 'until', 'until must be an ISO 8601 date-time');
      invalid(await recover(hook.id, { since: hourAgo, status: 'failed' }), 'status', 'property status should not exist');
      invalid(await recover(hook.id, { since: hourAgo, until: new Date(Date.now() - 7_200_000).toISOString() }), 'since', 'since must be before until');
      invalid(await recover(hook.id, { since: hourAgo, until: hourAgo }), 'since', 'since must be before until');
      const future = new Date(Date.now() + 3_600_000).toISOString();
      invalid(await recover(hook.id, { since: future }), 'since', 'since is in the future');
      invalid(await recover(hook.id, { since: future, until: new Date(Date.now() + 7_200_000).toISOString() }), 'since', 'since is in the future');
    });
  });

  describe('automatic disabling (WEBHOOK_DISABLE_AFTER_SECONDS=6)', () => {
    let dispatcher: ServiceProcess;
    let r: WebhookReceiver;
    let sentinel: WebhookReceiver;
    let organizationId: string;
    let hook: Awaited<ReturnType<typeof registerWebhook>>;
    let pay: (amount: number) => Promise<{ id: string }>;
    /** The failingSince of the failures that lead to disabling. */
    let failingSince: string;
    let disabled: WebhookView;
    let paying: Promise<void> | undefined;
    let keepPaying = false;

    beforeAll(async () => {
      dispatcher = await startDispatcher(stack, { WEBHOOK_DISABLE_AFTER_SECONDS: String(DISABLE_AFTER_SECONDS) });
      const made = await tenantWithDebtor('Failing Receiver Org');
      organizationId = made.tenant.organizationId;
      pay = made.pay;
      r = await receiver();
      sentinel = (await receiver()).answerAlways({ status: 200 });
      hook = await registerWebhook(operator, organizationId, { url: r.url });
      // A second webhook of the organization that always succeeds: once it has an event, the relay has passed it.
      await registerWebhook(operator, organizationId, { url: sentinel.url });
    });
    afterAll(async () => {
      keepPaying = false;
      await paying?.catch(() => undefined);
      await dispatcher?.stop();
    });

    const view = () => viewOf(organizationId, hook.id);
    async function viewOnce(check: (v: WebhookView) => void, timeoutMs = 10_000): Promise<WebhookView> {
      let found: WebhookView | undefined;
      await eventually(async () => {
        found = await view();
        check(found);
      }, timeoutMs);
      return found!;
    }

    /** A sample of the dispatcher's Prometheus metrics (GET /metrics on its health port, with the operator token). */
    async function metric(sample: string): Promise<number> {
      const ready = await dispatcher.waitForLog((l) => l.msg === 'webhook-dispatcher ready');
      const res = await fetch(`http://127.0.0.1:${String(ready.healthPort)}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      expect(res.status).toBe(200);
      const line = (await res.text()).split('\n').find((l) => l.startsWith(`${sample} `));
      expect(line).toBeDefined();
      return Number(line!.slice(sample.length + 1));
    }

    it('a success clears failingSince: a webhook whose failures are interrupted by a success is not disabled', async () => {
      expect(await metric('webhooks_auto_disabled_total')).toBe(0);
      r.answerAlways({ status: 500 });
      await pay(1);
      const first = await viewOnce((v) => expect(v.failingSince).toEqual(ISO));
      expect(first).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null });
      const firstFailure = Date.parse(first.failingSince!);

      r.answerAlways({ status: 200 });
      await pay(2);
      await viewOnce((v) => expect(v.failingSince).toBeNull());

      // Failing again, from 3 s after the first failure on: a payment every 300 ms, each attempt
      // answered 503 after 0.8 s, so some deliveries are always pending.
      await pauseUntil(firstFailure + 3_000);
      r.answerAlways({ status: 503, delayMs: 800 });
      keepPaying = true;
      paying = (async () => {
        for (let amount = 10; keepPaying; amount += 1) {
          await pay(amount);
          await pause(300);
        }
      })();
      failingSince = (await viewOnce((v) => expect(v.failingSince).toEqual(ISO))).failingSince!;
      expect(Date.parse(failingSince)).toBeGreaterThanOrEqual(firstFailure + 3_000);

      // The period has passed since the first failure, not since the failures that followed the success.
      await pauseUntil(firstFailure + (DISABLE_AFTER_SECONDS + 1.3) * 1000);
      expect(await view()).toMatchObject({ enabled: true, failingSince, disabledAt: null, disabledReason: null });
    }, 30_000);

    it('failing for the period: disabled with its reason, pending deliveries cancelled, logged, counted; no new deliveries', async () => {
      expect(failingSince).toBeDefined();
      disabled = await viewOnce((v) => expect(v.enabled).toBe(false), 15_000);
      keepPaying = false;
      await paying;
      expect(disabled).toEqual({
        ...Object.fromEntries(Object.entries(hook).filter(([k]) => k !== 'secret')),
        enabled: false,
        failingSince,
        disabledAt: ISO,
        disabledReason: `every delivery attempt failed for 6 seconds since ${failingSince} (last error: http_status 503)`,
        updatedAt: disabled.disabledAt,
      });
      expect(Date.parse(disabled.disabledAt!) - Date.parse(failingSince)).toBeGreaterThanOrEqual(DISABLE_AFTER_SECONDS * 1000);

      // Its pending deliveries were cancelled by the same statement (completedAt = disabledAt); any
      // a relay pass was creating meanwhile is cancelled at its first claim: none stays pending.
      let log: DeliveryView[] = [];
      await eventually(async () => {
        log = await listDeliveries(operator, hook.id);
        expect(log.filter((d) => d.status === 'pending')).toEqual([]);
      }, 10_000);
      const cancelledByDisabling = log.filter((d) => d.status === 'cancelled' && d.completedAt === disabled.disabledAt);
      expect(cancelledByDisabling.length).toBeGreaterThanOrEqual(1);

      const line = await dispatcher.waitForLog((l) => l.msg === 'webhook disabled automatically' && l.webhookId === hook.id);
      expect(line).toMatchObject({
        level: 'warn', webhookId: hook.id, organizationId, failingSince, cancelledDeliveries: cancelledByDisabling.length, reason: disabled.disabledReason,
      });
      expect(await metric('webhooks_auto_disabled_total')).toBe(1);

      // The relay creates no delivery for a disabled webhook, and nothing more reaches its receiver.
      await pause(1_500); // attempts in flight at the disabling end, and a relay pass that began before it, end
      const settled = await listDeliveries(operator, hook.id);
      expect(settled.filter((d) => d.status === 'pending')).toEqual([]);
      const received = r.requests.length;
      const after = await pay(999);
      await sentinel.waitFor(forResource('payment.registered', after.id));
      await pause(500);
      expect(await listDeliveries(operator, hook.id)).toHaveLength(settled.length);
      expect(r.requests).toHaveLength(received);
    }, 30_000);

    it('PATCH enabled true clears failingSince, disabledAt and disabledReason; the webhook receives again; recovery re-sends its failed deliveries', async () => {
      expect(disabled).toBeDefined();
      r.answerAlways({ status: 200 });
      const enabled = await operator.expect<{ data: WebhookView }>(200, 'PATCH', `/webhooks/${hook.id}`, { enabled: true });
      expect(enabled.data).toMatchObject({ enabled: true, failingSince: null, disabledAt: null, disabledReason: null });
      expect(await view()).toMatchObject({ enabled: true, failingSince: null, disabledAt: null, disabledReason: null });

      const later = await pay(1_000);
      await r.waitFor(forResource('payment.registered', later.id));
      await viewOnce((v) => expect(v).toMatchObject({ enabled: true, failingSince: null }));

      // The deliveries that failed while it was failing, re-sent; the cancelled ones stay cancelled.
      const log = await listDeliveries(operator, hook.id);
      const failed = log.filter((d) => d.status === 'failed' && Date.parse(d.completedAt!) >= Date.parse(failingSince));
      const cancelled = log.filter((d) => d.status === 'cancelled').map((d) => d.id);
      expect(failed.length).toBeGreaterThanOrEqual(1);
      const arrivals = r.next(failed.length, 10_000);
      const res = await recover(hook.id, { since: failingSince });
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ webhookId: hook.id, recovered: failed.length, since: failingSince, until: ISO });
      expect((await arrivals).map((req) => stripeVerify(req, hook.secret).id).sort()).toEqual(failed.map((d) => d.id).sort());
      await eventually(async () => {
        const now = new Map((await listDeliveries(operator, hook.id)).map((d) => [d.id, d]));
        for (const d of failed) expect(now.get(d.id)).toMatchObject({ status: 'succeeded', series: 2 });
        for (const id of cancelled) expect(now.get(id)?.status).toBe('cancelled');
      }, 10_000);
    }, 30_000);
  });
});
