import { createTenant, eventually, insertDebtor, OperatorClient, ServiceProcess, Stack, Tenant, WebhookReceiver } from '@dc/testing';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import {
  CreatedWebhook, DELIVERY_ID, DeliveryView, EVENT_ID, forResource, ISO, listDeliveries, publicGet, publicPost, registerWebhook, SIGNATURE_HEADER,
  signatureTime, sqlOn, startDispatcher, stripeVerify, tampered, webhookStackEnv,
} from './webhook-kit';

/**
 * docs/adr/0020: each event kind with the exact body (its eventId the outbox event's, docs/adr/0048), verified over the raw bytes by the
 * `stripe` library and (opt-in) by `standardwebhooks`; portfolio filters; demo and suspended
 * silence; livemode false for a sandbox; a new webhook served within 10 s.
 * Spec: Events (Registration rules, Event kinds, Delivery); README, Operator API.
 */
describe('webhook delivery: bodies, signatures and who receives what', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let dispatcher: ServiceProcess;
  const receivers: WebhookReceiver[] = [];
  const sql = () => sqlOn(stack);

  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    stack = await Stack.start({ env: webhookStackEnv() });
    operator = new OperatorClient(stack.operatorUrl);
    dispatcher = await startDispatcher(stack);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const debtorIn = (portfolioId: string) => sql()((c) => insertDebtor(c, { portfolioId }));
  const operatorPayment = (portfolioId: string, debtorId: string, extra: Record<string, unknown> = {}) =>
    operator.expect(201, 'POST', `/portfolios/${portfolioId}/payments`, { debtorId, amount: 10, paymentDate: '2026-01-16', source: 'panel', ...extra })
      .then((b) => b.data as { id: string });
  const completedCall = (portfolioId: string, debtorId: string) =>
    operator.expect(201, 'POST', `/portfolios/${portfolioId}/calls`, { debtorId, direction: 'outbound', status: 'completed' }).then((b) => b.data as { id: string });

  describe('each event kind', () => {
    let tenant: Tenant;
    let pf: string;
    let debtor: string;
    let plain: WebhookReceiver;
    let standard: WebhookReceiver;
    let plainHook: CreatedWebhook;
    let standardHook: CreatedWebhook;
    let startedAt: number;
    /** What each event's `data` must be: the public API's own representation of the resource. */
    const expected: { type: string; data: Record<string, unknown> }[] = [];

    const analysis = { summary: 'Agreed to pay', sentiment: 0.5, disposition: 'promise to pay', outcomes: ['promise'] };

    beforeAll(async () => {
      tenant = await createTenant(operator);
      pf = tenant.portfolioIds[0];
      debtor = await debtorIn(pf);
      plain = await receiver();
      standard = await receiver();
      plainHook = await registerWebhook(operator, tenant.organizationId, { url: plain.url });
      standardHook = await registerWebhook(operator, tenant.organizationId, { url: `${standard.url}hooks/std`, standardWebhooks: true });
      startedAt = Date.now();

      // payment.registered through POST /public/v1/payments: data is GET /public/v1/payments/{id}.
      const created = await publicPost(stack, tenant.key, '/payments', {
        externalId: 'ext-webhook-1', portfolioId: pf, debtorId: debtor, amount: 42.5, currency: 'EUR', paymentDate: '2026-01-15', method: 'card', reference: 'VCH-9',
      });
      expect(created.status).toBe(201);
      const apiPayment = (await publicGet(stack, tenant.readKey, `/payments/${created.body.data.id}`)).data;
      expect(apiPayment).toEqual(created.body.data);
      expected.push({ type: 'payment.registered', data: apiPayment });

      // payment.registered from the panel (operator intake).
      const panel = await operatorPayment(pf, debtor, { amount: 7.25, reference: 'PANEL-1' });
      expected.push({ type: 'payment.registered', data: (await publicGet(stack, tenant.readKey, `/payments/${panel.id}`)).data });

      // promise.created: data is the promise list item as it was when created.
      const promise = (await operator.expect(201, 'POST', `/portfolios/${pf}/promises`, { debtorId: debtor, amount: 30, promiseDate: '2026-12-01' })).data;
      const listedPromise = (await publicGet(stack, tenant.readKey, `/promises?debtorId=${debtor}`)).data.find((p: { id: string }) => p.id === promise.id);
      expect(listedPromise).toEqual(promise);
      expected.push({ type: 'promise.created', data: listedPromise });

      // payment.registered when the promise is fulfilled.
      const fulfilled = (await operator.expect(200, 'POST', `/promises/${promise.id}/fulfil`, { paymentDate: '2026-12-02' })).data;
      expected.push({ type: 'payment.registered', data: (await publicGet(stack, tenant.readKey, `/payments/${fulfilled.payment.id}`)).data });

      // call.completed for a call created completed (with an analysis the event must not carry) ...
      const callA = (await operator.expect(201, 'POST', `/portfolios/${pf}/calls`, {
        debtorId: debtor, direction: 'inbound', status: 'completed', fromNumber: '+34600000001', effectiveDurationSec: 61.5, analysis,
      })).data;
      expect(callA.analysis).toEqual(analysis);
      const callsAfterA = (await publicGet(stack, tenant.readKey, `/calls?debtorId=${debtor}`)).data;
      expected.push({ type: 'call.completed', data: callsAfterA.find((c: { id: string }) => c.id === callA.id) });

      // ... and for a call patched to completed.
      const callB = (await operator.expect(201, 'POST', `/portfolios/${pf}/calls`, { debtorId: debtor, direction: 'outbound', status: 'ringing' })).data;
      await operator.expect(200, 'PATCH', `/calls/${callB.id}`, { status: 'completed', effectiveDurationSec: 12 });
      const callsAfterB = (await publicGet(stack, tenant.readKey, `/calls?debtorId=${debtor}`)).data;
      expected.push({ type: 'call.completed', data: callsAfterB.find((c: { id: string }) => c.id === callB.id) });

      for (const e of expected) expect(e.data).toEqual(expect.objectContaining({ id: expect.any(String) }));
      await plain.waitForCount(expected.length, 15_000);
      await standard.waitForCount(expected.length, 15_000);
    });

    const requestFor = (r: WebhookReceiver, e: { type: string; data: Record<string, unknown> }) => {
      const found = r.requests.filter(forResource(e.type, e.data.id as string));
      expect(found).toHaveLength(1);
      return found[0];
    };

    it('one POST per event and webhook, body exactly {id, eventId, type, createdAt, livemode, data} with data the API shape', async () => {
      expect(plain.requests).toHaveLength(expected.length);
      const ids = new Set<string>();
      for (const e of expected) {
        const req = requestFor(plain, e);
        expect(req.method).toBe('POST');
        expect(req.path).toBe('/');
        expect(req.header('content-type')).toMatch(/^application\/json(; ?charset=utf-8)?$/i);
        const body = req.json();
        expect(body).toEqual({ id: expect.stringMatching(DELIVERY_ID), eventId: expect.stringMatching(EVENT_ID), type: e.type, createdAt: ISO, livemode: true, data: e.data });
        expect(Object.keys(body)).toEqual(['id', 'eventId', 'type', 'createdAt', 'livemode', 'data']);
        // eventId is the id of the outbox event the change wrote.
        const events = await sql()(async (c) =>
          (await c.query<{ id: string }>(`SELECT id FROM outbox_events WHERE type = $1 AND payload->>'id' = $2`, [e.type, e.data.id])).rows);
        expect(events.map((row) => row.id)).toEqual([body.eventId]);
        const createdAt = Date.parse(body.createdAt);
        expect(createdAt).toBeGreaterThanOrEqual(startedAt - 2_000);
        expect(createdAt).toBeLessThanOrEqual(req.receivedAt);
        if (e.type === 'call.completed') expect(body.data).not.toHaveProperty('analysis');
        ids.add(body.id);
      }
      expect(ids.size).toBe(expected.length);
      // The standard-webhooks path of the second webhook was kept as registered.
      expect(standard.requests.every((r) => r.path === '/hooks/std')).toBe(true);
    });

    it('the delivery log names each body id with its event and kind, succeeded after one attempt', async () => {
      const bodies = plain.requests.map((r) => r.json());
      let log: DeliveryView[] = [];
      // The receiver has answered; the dispatcher records the outcome right after.
      await eventually(async () => {
        log = await listDeliveries(operator, plainHook.id);
        expect(log.map((d) => d.status)).toEqual(expected.map(() => 'succeeded'));
      });
      expect(log.map((d) => d.id).sort()).toEqual(bodies.map((b) => b.id).sort());
      // Newest first: ids are time-ordered.
      expect(log.map((d) => d.id)).toEqual([...log.map((d) => d.id)].sort().reverse());
      for (const d of log) {
        const body = bodies.find((b) => b.id === d.id);
        expect(d).toEqual({
          id: body.id,
          webhookId: plainHook.id,
          eventId: body.eventId,
          type: body.type,
          status: 'succeeded',
          attemptCount: 1,
          series: 1,
          nextAttemptAt: null,
          createdAt: ISO,
          completedAt: ISO,
          attempts: [{
            number: 1, series: 1, createdAt: ISO, statusCode: 200, durationMs: expect.any(Number), errorClass: null, error: null, address: '127.0.0.1',
          }],
        });
      }
    });

    it('X-Service-Signature verifies with the stripe library over the raw bytes; one changed byte or another secret fails', () => {
      const now = Math.floor(Date.now() / 1000);
      for (const e of expected) {
        const req = requestFor(plain, e);
        expect(req.header('x-service-signature')).toMatch(SIGNATURE_HEADER);
        const t = signatureTime(req);
        expect(t).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000) - 1);
        expect(t).toBeLessThanOrEqual(now + 1);
        expect(stripeVerify(req, plainHook.secret)).toEqual(req.json());
        expect(() => stripeVerify(req, plainHook.secret, tampered(req.rawBody))).toThrow(/signature/i);
        expect(() => stripeVerify(req, standardHook.secret)).toThrow(/signature/i);
      }
    });

    it('the second header names the event kind: X-Service-Event', () => {
      for (const e of expected) {
        expect(requestFor(plain, e).header('x-service-event')).toBe(e.type);
        expect(requestFor(standard, e).header('x-service-event')).toBe(e.type);
      }
    });

    it('Standard Webhooks headers: verified by the standardwebhooks library when opted in, absent otherwise', () => {
      for (const e of expected) {
        const req = requestFor(standard, e);
        const body = req.json();
        expect(req.header('webhook-id')).toBe(body.id);
        expect(req.header('webhook-timestamp')).toMatch(/^\d+$/);
        expect(req.header('webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/);
        const headers = {
          'webhook-id': req.header('webhook-id')!,
          'webhook-timestamp': req.header('webhook-timestamp')!,
          'webhook-signature': req.header('webhook-signature')!,
        };
        expect(new StandardWebhook(standardHook.secret).verify(req.rawBody, headers)).toEqual(body);
        expect(() => new StandardWebhook(standardHook.secret).verify(tampered(req.rawBody), headers)).toThrow();
        expect(() => new StandardWebhook(plainHook.secret).verify(req.rawBody, headers)).toThrow();
        // The same secret also serves the X-Service-Signature scheme.
        expect(stripeVerify(req, standardHook.secret)).toEqual(body);
        expect(body).toEqual({ id: expect.stringMatching(DELIVERY_ID), eventId: expect.stringMatching(EVENT_ID), type: e.type, createdAt: ISO, livemode: true, data: e.data });

        const withoutOptIn = requestFor(plain, e);
        // The same event to another webhook: another delivery id, the same eventId.
        expect(body.eventId).toBe(withoutOptIn.json().eventId);
        expect(body.id).not.toBe(withoutOptIn.json().id);
        for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(withoutOptIn.headers).not.toHaveProperty(name);
      }
      // One event, two webhooks: two deliveries, two ids.
      const plainIds = new Set(plain.requests.map((r) => r.json().id));
      expect(standard.requests.some((r) => plainIds.has(r.json().id))).toBe(false);
    });
  });

  it('portfolio filter: a webhook limited to A gets A only, an unfiltered one both, another organization none; disabled and deleted webhooks none', async () => {
    const tenant = await createTenant(operator, { portfolios: 2, name: 'Filter Org' });
    const other = await createTenant(operator, { name: 'Other Org' });
    const [pfA, pfB] = tenant.portfolioIds;
    const [debtorA, debtorB, debtorOther] = [await debtorIn(pfA), await debtorIn(pfB), await debtorIn(other.portfolioIds[0])];
    const [onlyA, all, otherOrg, disabled, deleted] = await Promise.all([receiver(), receiver(), receiver(), receiver(), receiver()]);
    const hookA = await registerWebhook(operator, tenant.organizationId, { url: onlyA.url, portfolioIds: [pfA] });
    const hookAll = await registerWebhook(operator, tenant.organizationId, { url: all.url });
    const hookOther = await registerWebhook(operator, other.organizationId, { url: otherOrg.url });
    const hookDisabled = await registerWebhook(operator, tenant.organizationId, { url: disabled.url });
    const hookDeleted = await registerWebhook(operator, tenant.organizationId, { url: deleted.url });
    const patched = await operator.expect(200, 'PATCH', `/webhooks/${hookDisabled.id}`, { enabled: false });
    const view = Object.fromEntries(Object.entries(hookDisabled).filter(([k]) => k !== 'secret'));
    expect(patched.data).toEqual({ ...view, enabled: false, disabledAt: ISO, disabledReason: 'disabled by the operator', updatedAt: ISO });
    expect(patched.data).not.toHaveProperty('secret');
    const removed = await operator.request('DELETE', `/webhooks/${hookDeleted.id}`);
    expect(removed.status).toBe(204);

    const callA = await completedCall(pfA, debtorA);
    const callB = await completedCall(pfB, debtorB);
    const callOther = await completedCall(other.portfolioIds[0], debtorOther);
    await all.waitFor(forResource('call.completed', callA.id));
    // Once the unfiltered webhook has B's event, the relay has passed A's and B's: every delivery they make exists.
    await all.waitFor(forResource('call.completed', callB.id));
    await onlyA.waitFor(forResource('call.completed', callA.id));
    await otherOrg.waitFor(forResource('call.completed', callOther.id));

    expect((await listDeliveries(operator, hookA.id)).map((d) => d.type)).toEqual(['call.completed']);
    expect(await listDeliveries(operator, hookAll.id)).toHaveLength(2);
    expect(await listDeliveries(operator, hookOther.id)).toHaveLength(1);
    expect(await listDeliveries(operator, hookDisabled.id)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500)); // a bounded window: five relay intervals
    expect(onlyA.requests.map((r) => r.json().data.id)).toEqual([callA.id]);
    expect(all.requests.map((r) => r.json().data.id).sort()).toEqual([callA.id, callB.id].sort());
    expect(otherOrg.requests.map((r) => r.json().data.id)).toEqual([callOther.id]);
    expect([disabled.connections, deleted.connections]).toEqual([0, 0]);

    // Re-enabled, it receives what is written afterwards.
    await operator.expect(200, 'PATCH', `/webhooks/${hookDisabled.id}`, { enabled: true });
    const later = await completedCall(pfB, debtorB);
    await disabled.waitFor(forResource('call.completed', later.id));
    expect(disabled.requests).toHaveLength(1);
  });

  it('a demo portfolio and a suspended organization emit nothing; events written while suspended are never sent later', async () => {
    const tenant = await createTenant(operator, { name: 'Demo Org' });
    const live = tenant.portfolioIds[0];
    const demo = (await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/portfolios`, { identityName: 'Demo', identityCurrency: ['EUR'], demo: true })).data.id;
    const suspended = await createTenant(operator, { name: 'Suspended Org' });
    const [liveDebtor, demoDebtor, suspendedDebtor] = [await debtorIn(live), await debtorIn(demo), await debtorIn(suspended.portfolioIds[0])];
    const [tenantHooks, suspendedHooks] = [await receiver(), await receiver()];
    await registerWebhook(operator, tenant.organizationId, { url: tenantHooks.url });
    const suspendedHook = await registerWebhook(operator, suspended.organizationId, { url: suspendedHooks.url });
    await operator.expect(200, 'PATCH', `/organizations/${suspended.organizationId}`, { status: 'suspended' });

    await completedCall(demo, demoDebtor);
    await operatorPayment(demo, demoDebtor);
    await operatorPayment(suspended.portfolioIds[0], suspendedDebtor);
    await completedCall(suspended.portfolioIds[0], suspendedDebtor);
    const control = await completedCall(live, liveDebtor);
    await tenantHooks.waitFor(forResource('call.completed', control.id));
    await new Promise((r) => setTimeout(r, 500)); // a bounded window after the control event
    expect(tenantHooks.requests.map((r) => r.json().data.id)).toEqual([control.id]);
    expect(suspendedHooks.connections).toBe(0);
    expect(await listDeliveries(operator, suspendedHook.id)).toEqual([]);

    // Active again: what it writes now is delivered, what it wrote while suspended never is.
    await operator.expect(200, 'PATCH', `/organizations/${suspended.organizationId}`, { status: 'active' });
    const after = await operatorPayment(suspended.portfolioIds[0], suspendedDebtor, { amount: 3 });
    await suspendedHooks.waitFor(forResource('payment.registered', after.id));
    await new Promise((r) => setTimeout(r, 500));
    expect(suspendedHooks.requests.map((r) => r.json().data.id)).toEqual([after.id]);
    expect(await listDeliveries(operator, suspendedHook.id)).toHaveLength(1);
  });

  it('a sandbox organization delivers livemode false', async () => {
    const sandbox = await createTenant(operator, { sandbox: true, name: 'Sandbox Org' });
    const debtor = await debtorIn(sandbox.portfolioIds[0]);
    const hooks = await receiver();
    const hook = await registerWebhook(operator, sandbox.organizationId, { url: hooks.url });
    const payment = await operatorPayment(sandbox.portfolioIds[0], debtor);
    const req = await hooks.waitFor(forResource('payment.registered', payment.id));
    const apiPayment = (await publicGet(stack, sandbox.readKey, `/payments/${payment.id}`)).data;
    expect(stripeVerify(req, hook.secret)).toEqual({
      id: expect.stringMatching(DELIVERY_ID), eventId: expect.stringMatching(EVENT_ID), type: 'payment.registered', createdAt: ISO, livemode: false, data: apiPayment,
    });
  });

  it('a new webhook receives an event written right after its registration within 10 s', async () => {
    const tenant = await createTenant(operator, { name: 'New Hook Org' });
    const pf = tenant.portfolioIds[0];
    const debtor = await debtorIn(pf);
    const [first, second] = [await receiver(), await receiver()];
    await registerWebhook(operator, tenant.organizationId, { url: first.url });
    // The organization's webhooks have already been looked up once (whatever a relay may cache) ...
    const warm = await completedCall(pf, debtor);
    await first.waitFor(forResource('call.completed', warm.id));
    // ... then a second webhook is registered and an event written at once.
    const hook = await registerWebhook(operator, tenant.organizationId, { url: second.url });
    const written = Date.now();
    const payment = await operatorPayment(pf, debtor);
    const req = await second.waitFor(forResource('payment.registered', payment.id), 12_000);
    expect(req.receivedAt - written).toBeLessThan(10_000);
    expect(stripeVerify(req, hook.secret).data).toEqual(expect.objectContaining({ id: payment.id }));
    expect(second.requests).toHaveLength(1); // the event written before its registration is not its
    expect(dispatcher.running).toBe(true);
  });
});
