import { createTenant, eventually, insertDebtor, OperatorClient, ReceivedRequest, ServiceProcess, Stack, Tenant, WebhookReceiver } from '@dc/testing';
import { forResource, publicPost, registerWebhook, sqlOn, startDispatcher, webhookStackEnv } from './webhook-kit';

/** A's backlog: 240 events, each for its 10 webhooks on one receiver that takes 1 s per request. */
const EVENTS = 240;
const HOOKS = 10;
const SLOW_MS = 1_000;
/** First attempts of B measured each time, one after another. */
const SAMPLES = 10;
/** Attempts one organization may have in flight in a dispatcher process: 50 % of WEBHOOK_CONCURRENCY (200), the defaults. */
const ORGANIZATION_CAP = 100;

/**
 * Fair shares (deliveries; docs/adr/0044): one organization's backlog on a slow receiver
 * does not delay another organization's first attempt. Tenant A has 240 events waiting on a receiver
 * that takes 1 s per request, through 10 webhooks (each allowed a tenth of a process by the
 * per-receiver rule: together, all of it); tenant B then registers payments, and each must reach B's
 * receiver within 5 s. A's events are written while no dispatcher runs, so that its whole backlog is
 * queued at once when they start, just before B's first payment. The dispatchers run with the
 * default concurrency settings; one, then two replicas, each on a stack (and queue) of its own.
 */
describe.each([1, 2])('fair deliveries per organization, %i dispatcher(s)', (replicas) => {
  let stack: Stack;
  let operator: OperatorClient;
  const receivers: WebhookReceiver[] = [];
  const dispatchers: ServiceProcess[] = [];
  const startDispatchers = async () => dispatchers.push(...(await Promise.all(Array.from({ length: replicas }, () => startDispatcher(stack)))));
  const stopDispatchers = () => Promise.all(dispatchers.splice(0).map((d) => d.stop('SIGTERM')));

  beforeAll(async () => {
    stack = await Stack.start({ env: webhookStackEnv() });
    operator = new OperatorClient(stack.operatorUrl);
  });
  afterEach(() => stopDispatchers());
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const receiver = async (delayMs = 0) => {
    const r = await WebhookReceiver.start({ status: 204, delayMs });
    receivers.push(r);
    return r;
  };

  /** An organization with a debtor, and a way to register a payment for it through POST /public/v1/payments. */
  async function tenantWithDebtor(name: string): Promise<{ tenant: Tenant; pay: (externalId: string) => Promise<string> }> {
    const tenant = await createTenant(operator, { name });
    const portfolioId = tenant.portfolioIds[0];
    const debtorId = await sqlOn(stack)((c) => insertDebtor(c, { portfolioId }));
    const pay = async (externalId: string) => {
      const res = await publicPost(stack, tenant.key, '/payments', { externalId, portfolioId, debtorId, amount: 5, paymentDate: '2026-03-01', method: 'card' });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    return { tenant, pay };
  }

  async function countDeliveries(organizationId: string, where: string): Promise<number> {
    const rows = await sqlOn(stack)(async (c) => (await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.organization_id = $1 AND ${where}`,
      [organizationId])).rows);
    return rows[0].n;
  }

  /** From writing each of `SAMPLES` payments to its first attempt at `r`, in ms, one after another. */
  async function firstAttempts(pay: (externalId: string) => Promise<string>, r: WebhookReceiver, label: string): Promise<number[]> {
    const latencies: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      const written = Date.now();
      const paymentId = await pay(`${label}-${i}`);
      const first = await r.waitFor(forResource('payment.registered', paymentId), 15_000);
      latencies.push(first.receivedAt - written);
    }
    return latencies;
  }

  /** The most requests that reached `r` within any 950 ms: with 1 s answers, at most those in flight at once. */
  const mostAtOnce = (requests: ReceivedRequest[]) =>
    Math.max(...requests.map((req) => requests.filter((o) => o.receivedAt >= req.receivedAt && o.receivedAt < req.receivedAt + 950).length));

  it("B's first attempts arrive within 5 s while A's 240 events wait on a receiver that takes 1 s each", async () => {
    const [slow, quick] = [await receiver(SLOW_MS), await receiver()];
    const b = await tenantWithDebtor('Quiet Org');
    await registerWebhook(operator, b.tenant.organizationId, { url: quick.url });
    await startDispatchers();
    const alone = await firstAttempts(b.pay, quick, 'alone');
    await stopDispatchers();

    // A's backlog, written while no dispatcher runs, then queued all at once.
    const a = await tenantWithDebtor('Backlog Org');
    for (let i = 0; i < HOOKS; i += 1) await registerWebhook(operator, a.tenant.organizationId, { url: `${slow.url}hooks/${i}` });
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < EVENTS) await a.pay(`backlog-${next++}`);
    }));
    await startDispatchers();
    await eventually(async () => {
      expect(await countDeliveries(a.tenant.organizationId, 'd.queued_at IS NOT NULL')).toBe(EVENTS * HOOKS);
    }, 10_000);

    const beside = await firstAttempts(b.pay, quick, 'beside');
    console.log(`first attempt of B, ${replicas} dispatcher(s), ms: alone ${alone.join(' ')}; beside A's backlog ${beside.join(' ')}`);
    expect(Math.max(...beside)).toBeLessThan(5_000);
    // A held at most its share of each process, never the whole of it.
    expect(mostAtOnce(slow.requests)).toBeLessThanOrEqual(replicas * ORGANIZATION_CAP);
    // A's backlog goes on meanwhile, and none of it failed.
    const seen = slow.requests.length;
    await slow.waitForCount(seen + 50, 5_000);
    expect(await countDeliveries(a.tenant.organizationId, `d.status IN ('failed', 'cancelled')`)).toBe(0);
    expect(await countDeliveries(a.tenant.organizationId, `d.status = 'succeeded'`)).toBeGreaterThanOrEqual(seen - replicas * ORGANIZATION_CAP);
  }, 60_000);
});
