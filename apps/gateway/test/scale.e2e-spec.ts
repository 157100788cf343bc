import type { ImportView } from '@dc/contracts';
import {
  createTenant, enqueueImport, eventually, GENERATED_HEADER, generateCsv, identityMapping, OPERATOR_TOKEN, OperatorClient, ServiceProcess, Stack,
  uploadCsv, waitForImport, WebhookReceiver,
} from '@dc/testing';
import IORedis from 'ioredis';
import {
  cloneOutboxEvents, completions, deliveriesOf, handledOnce, liveDebtors, pay, payer, SCALE_ENV, startDispatcher, startImporter,
} from './scale-kit';

/**
 * The short profile runs in `npm test`; `npm run scale` runs the same code with bigger numbers
 * (SCALE_PROFILE=long).
 */
const PROFILE = process.env.SCALE_PROFILE === 'long'
  ? { readBursts: 100, importRows: 20_000, deliveries: 2_000, timeoutMs: 900_000 }
  : { readBursts: 10, importRows: 1_500, deliveries: 100, timeoutMs: 120_000 };

jest.setTimeout(PROFILE.timeoutMs);

/**
 * Scale proof on one machine (docs/adr/0033): 2 gateways, 3 api-cores, 2 importers and 2
 * webhook dispatchers, each its own process, sharing one Postgres, Redis and NATS. The short
 * profile (this file, part of `npm test`): a few hundred requests, four imports, a hundred
 * deliveries. Each unit of work is traced to the one process that did it: api-core's `handled` log
 * line per request id, the importer's `import completed` line per import, the delivery rows and
 * the receiver's requests per delivery id.
 */
describe('scale-out: 2 gateways, 3 api-cores, 2 importers, 2 dispatchers', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let redis: IORedis;
  let receiver: WebhookReceiver;
  const importers: ServiceProcess[] = [];
  const dispatchers: ServiceProcess[] = [];
  const gateway = (i: number) => stack.gateways[i].publicUrl;

  beforeAll(async () => {
    // One process at a time: nine Node processes starting together on a small machine are slow to be ready.
    stack = await Stack.start({ env: SCALE_ENV });
    await stack.startApiCore();
    await stack.startApiCore();
    await stack.startGateway();
    for (let i = 0; i < 2; i += 1) importers.push(await startImporter(stack));
    for (let i = 0; i < 2; i += 1) dispatchers.push(await startDispatcher(stack));
    operator = new OperatorClient(stack.operatorUrl);
    redis = new IORedis('redis://127.0.0.1:6379');
    receiver = await WebhookReceiver.start({ status: 200 });
  }, 120_000);
  afterAll(async () => {
    redis?.disconnect();
    await receiver?.close();
    await stack?.stop();
  });

  it('requests through both gateways are spread over all three api-cores, each handled exactly once', async () => {
    const tenant = await createTenant(operator, { name: 'Spread Org' });
    // A key per 250 requests: the rate limit (300 a minute per key) stays out of the way.
    const keys = [tenant.readKey];
    while (keys.length * 250 < PROFILE.readBursts * 15) {
      keys.push((await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, {})).data.key);
    }
    const requestIds: string[] = [];
    for (let burst = 0; burst < PROFILE.readBursts; burst += 1) {
      const key = keys[Math.floor((burst * 15) / 250)];
      const answers = await Promise.all(
        Array.from({ length: 15 }, (_, i) => fetch(`${gateway((burst + i) % 2)}/public/v1/portfolios`, { headers: { authorization: `Bearer ${key}` } })),
      );
      for (const res of answers) {
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        requestIds.push(res.headers.get('x-request-id')!);
      }
    }
    const total = PROFILE.readBursts * 15;
    expect(new Set(requestIds).size).toBe(total);
    const perCore = await handledOnce(stack.apiCores, 'portfolios.list', requestIds, 60_000);
    expect(perCore.reduce((a, b) => a + b, 0)).toBe(total);
    for (const n of perCore) expect(n).toBeGreaterThan(0);
    // Both gateways answered (each logs its own requests).
    for (const g of stack.gateways) {
      expect(g.process.logs.filter((l) => l.msg === 'request' && requestIds.includes(String(l.requestId))).length).toBeGreaterThan(0);
    }
  });

  it('the rate limit is exact across both gateways: 300 admitted in a window, every further unit refused', async () => {
    const tenant = await createTenant(operator, { name: 'Limit Org' });
    // The window is Redis's clock minute, named by every answer's X-RateLimit-Reset. Bursts of 30,
    // alternating gateways, until a window has refused some: should the clock minute turn during
    // the bursts, the count starts again in the new window, and the bursts go on there.
    const answers: { status: number; reset: string; gateway: number }[] = [];
    const refusedIn = () => new Set(answers.filter((a) => a.status === 429).map((a) => a.reset));
    while (refusedIn().size === 0) {
      if (answers.length > 1200) throw new Error('no window filled up');
      const base = answers.length;
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 30 }, async (_, j) => {
            const g = (base + j) % 2;
            const res = await fetch(`${gateway(g)}/public/v1/me`, { headers: { authorization: `Bearer ${tenant.readKey}` } });
            await res.arrayBuffer();
            return { status: res.status, reset: res.headers.get('x-ratelimit-reset')!, gateway: g };
          }),
        )),
      );
    }
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    const windows = new Set(answers.map((a) => a.reset));
    for (const window of windows) {
      const admitted = answers.filter((a) => a.reset === window && a.status === 200);
      // 300 ± 0 in a window that refused; never more than 300 in any.
      if (refusedIn().has(window)) expect(admitted).toHaveLength(300);
      else expect(admitted.length).toBeLessThan(300);
      if (refusedIn().has(window)) for (const g of [0, 1]) expect(admitted.filter((a) => a.gateway === g).length).toBeGreaterThan(0);
    }
  });

  it('a key revoked through gateway A is refused by gateway B within AUTH_CACHE_TTL_MS (the auth.invalidate message clears B’s cache)', async () => {
    const tenant = await createTenant(operator, { name: 'Revoke Org' });
    const created = await new OperatorClient(stack.gateways[0].operatorUrl).expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, {});
    const me = (g: number) => fetch(`${gateway(g)}/public/v1/me`, { headers: { authorization: `Bearer ${created.data.key}` } });
    // Both gateways have the key in their cache.
    for (const g of [0, 1]) expect((await me(g)).status).toBe(200);
    await new OperatorClient(stack.gateways[0].operatorUrl).expect(200, 'POST', `/api-keys/${created.data.id}/revoke`);
    const authCacheTtlMs = 60_000; // AUTH_CACHE_TTL_MS, its default (README: the documented bound)
    await eventually(async () => {
      const res = await me(1);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }, authCacheTtlMs);
    expect((await me(0)).status).toBe(401);
  });

  it('four imports on two importers: each completes once, each row written once', async () => {
    const tenant = await createTenant(operator, { name: 'Import Org', portfolios: 4 });
    const rows = PROFILE.importRows;
    const queued: ImportView[] = [];
    for (const [i, pf] of tenant.portfolioIds.entries()) {
      const storageKey = await uploadCsv(gateway(i % 2), tenant.key, pf, generateCsv(rows, { prefix: `scale${i}` }));
      const res = await enqueueImport(gateway(i % 2), tenant.key, pf, { storageKey, columnMapping: identityMapping(GENERATED_HEADER) });
      expect(res.status).toBe(202);
      queued.push(res.body.data!);
    }
    const done = await Promise.all(queued.map((q) => waitForImport(stack.publicUrl, tenant.key, q.id, undefined, PROFILE.timeoutMs - 30_000, { intervalMs: 250 })));
    for (const [i, view] of done.entries()) {
      expect(view).toMatchObject({ id: queued[i].id, status: 'completed', created: rows, updated: 0, errors: 0, processedRows: rows, totalRows: rows });
      expect(await liveDebtors(stack, tenant.portfolioIds[i])).toEqual({ n: rows, documents: rows, external_ids: rows });
    }
    // Exactly one `import completed` per import, over both importers.
    await eventually(() => {
      for (const q of queued) expect(completions(importers, q.id).reduce((a, b) => a + b, 0)).toBe(1);
    });
  });

  it('a burst of deliveries (100; long profile 2,000) on two dispatchers: each delivered exactly once, one attempt recorded each', async () => {
    const N = PROFILE.deliveries;
    const p = await payer(stack, operator, 'Delivery Org');
    const hook = await operator.expect(201, 'POST', `/organizations/${p.tenant.organizationId}/webhooks`, { url: receiver.url });
    const first = await pay(gateway(1), p);
    expect(first.status).toBe(201);
    const paymentIds = [first.body.data.id as string, ...(await cloneOutboxEvents(stack, first.body.data.id, N - 1))];
    await eventually(async () => {
      const rows = await deliveriesOf(stack, hook.data.id);
      expect(rows.filter((d) => d.status === 'succeeded')).toHaveLength(N);
    }, PROFILE.timeoutMs - 30_000);
    const rows = await deliveriesOf(stack, hook.data.id);
    expect(rows.map((d) => [d.attempt_count, d.attempts])).toEqual(Array.from({ length: N }, () => [1, 1]));
    expect(rows.map((d) => d.payment_id).sort()).toEqual([...paymentIds].sort());
    // A succeeded delivery is never claimed again: what the receiver has now is all it gets.
    const received = receiver.requests.map((r) => r.json<{ id: string }>().id);
    expect(received).toHaveLength(N);
    expect(new Set(received)).toEqual(new Set(rows.map((d) => d.id)));
    // Each dispatcher counts a success once its outcome is committed: right after the row shows it.
    await eventually(async () => {
      const succeeded = await Promise.all(dispatchers.map((d) => deliveriesSucceeded(d)));
      expect(succeeded.reduce((a, b) => a + b, 0)).toBe(N);
    });
  });

  /** webhook_deliveries_total{outcome="succeeded"} of one dispatcher (GET /metrics on its health port). */
  async function deliveriesSucceeded(dispatcher: ServiceProcess): Promise<number> {
    const ready = await dispatcher.waitForLog((l) => l.msg === 'webhook-dispatcher ready');
    const res = await fetch(`http://127.0.0.1:${String(ready.healthPort)}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    const sample = 'webhook_deliveries_total{outcome="succeeded"}';
    const line = (await res.text()).split('\n').find((l) => l.startsWith(`${sample} `));
    return line ? Number(line.slice(sample.length + 1)) : 0;
  }
});
