import { createTenant, insertDebtor, OperatorClient, ReceivedRequest, Stack, Tenant, WebhookReceiver } from '@dc/testing';
import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import {
  CreatedWebhook, DELIVERY_ID, EVENT_ID, forResource, ISO, listDeliveries, publicPost, registerWebhook, sqlOn, startDispatcher, stripeVerify,
  webhookStackEnv,
} from './webhook-kit';

/**
 * Secret rotation without downtime (docs/adr/0048; README, Operator API): after
 * POST /operator/v1/webhooks/{id}/rotate-secret every delivery is signed with the new and the old
 * secret until the overlap ends — `X-Service-Signature: t=…,v1=<new>,v1=<old>` and
 * `webhook-signature: v1,<new> v1,<old>` — so a receiver verifies with either, using the libraries
 * it already has (`stripe`, `standardwebhooks`); after the overlap, only the new one. The rotation
 * reaches the dispatcher at once (its secret cache is keyed by the ciphertext each claim reads).
 */
describe('webhook secret rotation', () => {
  let stack: Stack;
  let operator: OperatorClient;
  const receivers: WebhookReceiver[] = [];
  const sql = () => sqlOn(stack);
  let payments = 0;

  beforeAll(async () => {
    stack = await Stack.start({ env: webhookStackEnv() });
    operator = new OperatorClient(stack.operatorUrl);
    await startDispatcher(stack);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  /** A tenant of its own, with one debtor, a receiver and a webhook registered with Standard Webhooks headers. */
  async function setUp(name: string): Promise<{ tenant: Tenant; debtor: string; receiver: WebhookReceiver; hook: CreatedWebhook }> {
    const tenant = await createTenant(operator, { name });
    const debtor = await sql()((c) => insertDebtor(c, { portfolioId: tenant.portfolioIds[0] }));
    const receiver = await WebhookReceiver.start();
    receivers.push(receiver);
    const hook = await registerWebhook(operator, tenant.organizationId, { url: receiver.url, standardWebhooks: true });
    return { tenant, debtor, receiver, hook };
  }

  /** POST /public/v1/payments, then the receiver's payment.registered delivery for it. */
  async function deliveredPayment(tenant: Tenant, debtor: string, receiver: WebhookReceiver): Promise<ReceivedRequest> {
    payments += 1;
    const created = await publicPost(stack, tenant.key, '/payments', {
      externalId: `rotation-${payments}`, portfolioId: tenant.portfolioIds[0], debtorId: debtor, amount: 10 + payments, currency: 'EUR',
      paymentDate: '2026-01-15', method: 'card',
    });
    expect(created.status).toBe(201);
    return receiver.waitFor(forResource('payment.registered', created.body.data.id), 15_000, `the delivery of payment ${created.body.data.id}`);
  }

  /** The view every route but registration and rotation answers: no secret. */
  const withoutSecret = (webhook: CreatedWebhook) => Object.fromEntries(Object.entries(webhook).filter(([key]) => key !== 'secret'));

  /** POST /operator/v1/webhooks/{id}/rotate-secret: 200 with the view and the new secret. */
  async function rotate(hook: CreatedWebhook, body?: { overlapSeconds: number }): Promise<CreatedWebhook> {
    const res = await operator.request('POST', `/webhooks/${hook.id}/rotate-secret`, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { ...withoutSecret(hook), previousSecretExpiresAt: body?.overlapSeconds === 0 ? null : ISO, updatedAt: ISO, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}$/) },
    });
    expect(res.body.data.secret).not.toBe(hook.secret);
    return res.body.data;
  }

  /** What a receiver built on the standardwebhooks library does with the three headers and the raw body. */
  const standardVerify = (req: ReceivedRequest, secret: string): unknown =>
    new StandardWebhook(secret).verify(req.rawBody, {
      'webhook-id': req.header('webhook-id') ?? '',
      'webhook-timestamp': req.header('webhook-timestamp') ?? '',
      'webhook-signature': req.header('webhook-signature') ?? '',
    });

  /** Both libraries accept the delivery with `secret` and return its body. */
  function verifiesWith(req: ReceivedRequest, secret: string): void {
    const body = req.json();
    expect(stripeVerify(req, secret)).toEqual(body);
    expect(standardVerify(req, secret)).toEqual(body);
  }

  /** Neither library accepts the delivery with `secret`. */
  function refusedWith(req: ReceivedRequest, secret: string): void {
    expect(() => stripeVerify(req, secret)).toThrow(/signature/i);
    expect(() => standardVerify(req, secret)).toThrow();
  }

  const ONE_SIGNATURE = { service: /^t=\d+,v1=[0-9a-f]{64}$/, standard: /^v1,[A-Za-z0-9+/]+={0,2}$/ };
  const TWO_SIGNATURES = { service: /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/, standard: /^v1,[A-Za-z0-9+/]+={0,2} v1,[A-Za-z0-9+/]+={0,2}$/ };
  const signatures = (req: ReceivedRequest) => ({ service: req.header('x-service-signature'), standard: req.header('webhook-signature') });
  const expectSignatures = (req: ReceivedRequest, shape: typeof ONE_SIGNATURE) => {
    const found = signatures(req);
    expect(found.service).toMatch(shape.service);
    expect(found.standard).toMatch(shape.standard);
  };

  it('during the overlap every delivery carries a signature with the new and one with the old secret; stripe and standardwebhooks accept either', async () => {
    const { tenant, debtor, receiver, hook } = await setUp('Rotating Org');
    const other = await setUp('Bystander Org');

    // Before: one signature, the registration's secret (and the dispatcher has that secret cached).
    const before = await deliveredPayment(tenant, debtor, receiver);
    expectSignatures(before, ONE_SIGNATURE);
    verifiesWith(before, hook.secret);

    const rotated = await rotate(hook);
    expect(Date.parse(rotated.previousSecretExpiresAt!) - Date.parse(rotated.updatedAt)).toBe(86_400_000);

    // The first event written after the rotation is already signed with both secrets.
    const during = await deliveredPayment(tenant, debtor, receiver);
    expect(during.json()).toEqual({
      id: expect.stringMatching(DELIVERY_ID), eventId: expect.stringMatching(EVENT_ID), type: 'payment.registered', createdAt: ISO, livemode: true,
      data: expect.objectContaining({ id: expect.stringMatching(/^pay_/) }),
    });
    expectSignatures(during, TWO_SIGNATURES);
    verifiesWith(during, rotated.secret);
    verifiesWith(during, hook.secret);
    refusedWith(during, other.hook.secret);
    // Exactly one signature per secret, the new secret's first, in both headers.
    const t = Number(/^t=(\d+),/.exec(during.header('x-service-signature')!)![1]);
    const serviceMac = (secret: string) => createHmac('sha256', secret).update(`${t}.`).update(during.rawBody).digest('hex');
    expect(during.header('x-service-signature')).toBe(`t=${t},v1=${serviceMac(rotated.secret)},v1=${serviceMac(hook.secret)}`);
    const standardMac = (secret: string) =>
      createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${during.json().id}.${t}.`).update(during.rawBody).digest('base64');
    expect(during.header('webhook-timestamp')).toBe(String(t));
    expect(during.header('webhook-signature')).toBe(`v1,${standardMac(rotated.secret)} v1,${standardMac(hook.secret)}`);

    // Another webhook's deliveries are untouched by this one's rotation.
    const elsewhere = await deliveredPayment(other.tenant, other.debtor, other.receiver);
    expectSignatures(elsewhere, ONE_SIGNATURE);
    verifiesWith(elsewhere, other.hook.secret);

    // The new secret was shown once: the list shows the rotation state, never a secret.
    const list = await operator.expect(200, 'GET', `/organizations/${tenant.organizationId}/webhooks`);
    expect(list.data).toEqual([withoutSecret(rotated)]);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    expect((await listDeliveries(operator, hook.id)).map((d) => d.id).sort()).toEqual([before.json().id, during.json().id].sort());
  });

  it('after the overlap only the new secret signs: the old one no longer verifies', async () => {
    const { tenant, debtor, receiver, hook } = await setUp('Short Overlap Org');
    const rotated = await rotate(hook, { overlapSeconds: 1 });
    const expiresAt = Date.parse(rotated.previousSecretExpiresAt!);
    expect(expiresAt - Date.parse(rotated.updatedAt)).toBe(1_000);
    // Past the expiry (with a margin for the clocks of this process and Postgres, the same machine).
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 1_000));

    const after = await deliveredPayment(tenant, debtor, receiver);
    expectSignatures(after, ONE_SIGNATURE);
    verifiesWith(after, rotated.secret);
    refusedWith(after, hook.secret);
    const list = await operator.expect(200, 'GET', `/organizations/${tenant.organizationId}/webhooks`);
    expect(list.data).toEqual([expect.objectContaining({ id: hook.id, previousSecretExpiresAt: null })]);
  });

  it('overlapSeconds 0: the old secret stops signing at once', async () => {
    const { tenant, debtor, receiver, hook } = await setUp('No Overlap Org');
    const warm = await deliveredPayment(tenant, debtor, receiver);
    verifiesWith(warm, hook.secret);
    const rotated = await rotate(hook, { overlapSeconds: 0 });
    const after = await deliveredPayment(tenant, debtor, receiver);
    expectSignatures(after, ONE_SIGNATURE);
    verifiesWith(after, rotated.secret);
    refusedWith(after, hook.secret);
  });

  it('a second rotation during the overlap: signed with the newest and the one it replaced, no longer with the first', async () => {
    const { tenant, debtor, receiver, hook } = await setUp('Twice Rotated Org');
    const first = await rotate(hook, { overlapSeconds: 3600 });
    const second = await rotate(first, { overlapSeconds: 3600 });
    const after = await deliveredPayment(tenant, debtor, receiver);
    expectSignatures(after, TWO_SIGNATURES);
    verifiesWith(after, second.secret);
    verifiesWith(after, first.secret);
    refusedWith(after, hook.secret);
  });
});
