import type { ImportView } from '@dc/contracts';
import {
  createTenant, enqueueImport, eventually, GENERATED_HEADER, generateCsv, identityMapping, OperatorClient, ServiceProcess, Stack, uploadCsv, waitForImport,
  WebhookReceiver,
} from '@dc/testing';
import {
  cloneOutboxEvents, completions, deliveriesOf, liveDebtors, pay, PaymentAnswer, Payer, payer, SCALE_ENV, startDispatcher, startImporter,
  storedPayments,
} from './scale-kit';

jest.setTimeout(120_000);

const GRACE_MS = 10_000;

/**
 * Graceful shutdown under load (docs/adr/0033): SIGTERM to one replica of each app while
 * work flows loses no accepted request, job or delivery, and the process exits 0 within
 * SHUTDOWN_GRACE_MS (measured between its own `shutting down` and `stopped` log lines).
 *
 * "Accepted" for HTTP: a request the gateway began to process. A client of a draining gateway sees
 * one of: the full answer; 503 service_unavailable with `Connection: close` and Retry-After (a new
 * request on a kept-alive connection, refused before any work); or, at the connection level, a
 * refused connection, or a kept-alive idle connection closed by the gateway as the request was sent
 * (the race every HTTP/1.1 server has, RFC 9112 §9.3.1; the request was not read). The database
 * shows which: a payment is stored if and only if its client got 201.
 */
describe('graceful shutdown under load', () => {
  let stack: Stack;
  let operator: OperatorClient;

  beforeAll(async () => {
    // No rate limit in the way of the load (one key per test pays in a loop).
    stack = await Stack.start({ env: { ...SCALE_ENV, SHUTDOWN_GRACE_MS: String(GRACE_MS), RATE_LIMIT_PER_MINUTE: '1000000' } });
    await stack.startApiCore();
    await stack.startGateway();
    operator = new OperatorClient(stack.operatorUrl);
  }, 120_000);
  afterAll(() => stack?.stop());

  /** SIGTERMs `process`: its exit code, and the time between its `shutting down` and `stopped` lines. */
  async function terminate(process: ServiceProcess): Promise<{ code: number | null; stopMs: number }> {
    const code = await process.stop('SIGTERM');
    // The lines' own ISO timestamps (pino isoTime), written by the process itself.
    const at = (msg: string) => Date.parse(String(process.logs.find((l) => l.msg === msg)?.time));
    return { code, stopMs: at('stopped') - at('shutting down') };
  }

  /**
   * `workers` clients paying in a loop through `gateways` (worker i through gateways[i % n]) until
   * `until` resolves, then one more payment each: every answer, with the gateway it went to.
   */
  async function payUnderLoad(p: Payer, gateways: string[], workers: number, until: Promise<unknown>): Promise<(PaymentAnswer & { gateway: string })[]> {
    const answers: (PaymentAnswer & { gateway: string })[] = [];
    let done = false;
    void until.then(() => (done = true));
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        const gateway = gateways[w % gateways.length];
        for (let last = false; !last; ) {
          last = done;
          answers.push({ ...(await pay(gateway, p)), gateway });
        }
      }),
    );
    return answers;
  }

  it('gateway: a SIGTERMed gateway answers what it accepted, refuses the rest explicitly, and no payment is lost or done unanswered', async () => {
    const p = await payer(stack, operator, 'Gateway Drain Org');
    const [a, b] = stack.gateways;
    let answeredByB = 0;
    // Terminate B once the load is flowing through it (some of its answers seen).
    const stopped = (async () => {
      await eventually(() => expect(answeredByB).toBeGreaterThanOrEqual(20), 30_000);
      return terminate(b.process);
    })();
    const load = payUnderLoad(p, [a.publicUrl, b.publicUrl], 8, stopped);
    const counter = setInterval(() => (answeredByB = b.process.logs.filter((l) => l.msg === 'request' && l.status === 201).length), 20);
    const answers = await load;
    clearInterval(counter);
    const { code, stopMs } = await stopped;
    expect(code).toBe(0);
    expect(stopMs).toBeLessThanOrEqual(GRACE_MS);

    const fromA = answers.filter((x) => x.gateway === a.publicUrl);
    const fromB = answers.filter((x) => x.gateway === b.publicUrl);
    expect(fromA.filter((x) => x.status !== 201)).toEqual([]);
    expect(fromB.filter((x) => x.status === 201).length).toBeGreaterThanOrEqual(20);
    for (const x of fromB.filter((y) => y.status !== 201)) {
      if (x.status === undefined) {
        // Refused, or a kept-alive connection closed by the draining gateway before it read the request.
        expect(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']).toContain(x.error);
      } else {
        expect({ status: x.status, code: x.body?.error?.code, connection: x.connection, retryAfter: x.retryAfter }).toEqual({
          status: 503, code: 'service_unavailable', connection: 'close', retryAfter: '1',
        });
      }
    }
    // Once stopped, B accepts nothing: its port refuses connections.
    expect((await pay(b.publicUrl, p)).error).toBe('ECONNREFUSED');
    // No accepted payment lost, none done without its client hearing 201.
    const created = answers.filter((x) => x.status === 201).map((x) => x.externalId);
    expect(await storedPayments(stack, p.portfolioId)).toEqual([...created].sort());
  });

  it('api-core: a SIGTERMed api-core drains NATS; every request under load is answered 201, each payment stored once', async () => {
    const p = await payer(stack, operator, 'Core Drain Org');
    const [first, second] = stack.apiCores;
    const handledBy = (core: ServiceProcess) => core.logs.filter((l) => l.msg === 'handled' && l.pattern === 'payments.register').length;
    const before = handledBy(second);
    let handledBySecond = 0;
    const stopped = (async () => {
      await eventually(() => expect(handledBySecond).toBeGreaterThanOrEqual(15), 30_000);
      return terminate(second);
    })();
    const counter = setInterval(() => (handledBySecond = handledBy(second) - before), 20);
    const answers = await payUnderLoad(p, [stack.publicUrl], 8, stopped);
    clearInterval(counter);
    const { code, stopMs } = await stopped;
    expect(code).toBe(0);
    expect(stopMs).toBeLessThanOrEqual(GRACE_MS);
    expect(answers.filter((x) => x.status !== 201)).toEqual([]);
    expect(await storedPayments(stack, p.portfolioId)).toEqual(answers.map((x) => x.externalId).sort());
    // The survivor carried the load on.
    expect(handledBy(first)).toBeGreaterThan(0);
    await stack.startApiCore(); // the next tests run with two again
  });

  it('importer: a SIGTERMed importer hands its import back mid-file; the other completes it once, every row written once', async () => {
    const importers = [await startImporter(stack), await startImporter(stack)];
    const tenant = await createTenant(operator, { name: 'Import Drain Org' });
    const pf = tenant.portfolioIds[0];
    const rows = 12_000;
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, generateCsv(rows, { prefix: 'drain' }));
    const queued = (await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: identityMapping(GENERATED_HEADER) })).body.data!;
    const seen: ImportView = await waitForImport(stack.publicUrl, tenant.key, queued.id, (v) => v.status !== 'queued' && (v.status !== 'processing' || v.processedRows > 0), 60_000, { intervalMs: 10 });
    if (seen.status !== 'processing') throw new Error(`the import ended (${seen.status}) before the SIGTERM: use more rows`);
    const working = importers.find((i) => i.logs.some((l) => l.msg === 'import started' && l.importId === queued.id))!;
    const other = importers.find((i) => i !== working)!;
    const { code, stopMs } = await terminate(working);
    expect(code).toBe(0);
    expect(stopMs).toBeLessThanOrEqual(GRACE_MS);
    if (completions([working], queued.id)[0] > 0) throw new Error('the import completed before the SIGTERM took effect: use more rows');

    const done = await waitForImport(stack.publicUrl, tenant.key, queued.id, undefined, 90_000, { intervalMs: 250 });
    expect(done).toMatchObject({ status: 'completed', created: rows, updated: 0, errors: 0, processedRows: rows, totalRows: rows });
    expect(await liveDebtors(stack, pf)).toEqual({ n: rows, documents: rows, external_ids: rows });
    await eventually(() => expect(completions(importers, queued.id)).toEqual(importers.map((i) => (i === other ? 1 : 0))));
    expect(other.logs.some((l) => l.msg === 'import started' && l.importId === queued.id)).toBe(true);
    await other.stop('SIGTERM');
  });

  it('webhook-dispatcher: a SIGTERMed dispatcher finishes its attempts in flight; each delivery sent exactly once, its attempt recorded', async () => {
    const N = 100;
    // Each answer takes a while, so attempts are in flight when the signal arrives.
    const receiver = await WebhookReceiver.start({ status: 200, delayMs: 100 });
    try {
      const dispatchers = [await startDispatcher(stack), await startDispatcher(stack)];
      const p = await payer(stack, operator, 'Dispatch Drain Org');
      const hook = await operator.expect(201, 'POST', `/organizations/${p.tenant.organizationId}/webhooks`, { url: receiver.url });
      const first = await pay(stack.publicUrl, p);
      expect(first.status).toBe(201);
      const paymentIds = [first.body.data.id as string, ...(await cloneOutboxEvents(stack, first.body.data.id, N - 1))];
      await receiver.waitForCount(15, 30_000);
      const { code, stopMs } = await terminate(dispatchers[0]);
      expect(code).toBe(0);
      expect(stopMs).toBeLessThanOrEqual(GRACE_MS);

      await eventually(async () => expect((await deliveriesOf(stack, hook.data.id)).filter((d) => d.status === 'succeeded')).toHaveLength(N), 60_000);
      const rows = await deliveriesOf(stack, hook.data.id);
      expect(rows.map((d) => d.payment_id).sort()).toEqual([...paymentIds].sort());
      // A SIGTERM lets every attempt in flight end and be recorded: nothing is sent twice (at-least-once
      // redelivery is for a crash, SIGKILL, or an attempt that outlasts the grace period).
      expect(rows.map((d) => [d.attempt_count, d.attempts])).toEqual(Array.from({ length: N }, () => [1, 1]));
      const received = receiver.requests.map((r) => r.json<{ id: string }>().id);
      expect(received).toHaveLength(N);
      expect(new Set(received)).toEqual(new Set(rows.map((d) => d.id)));
      await dispatchers[1].stop('SIGTERM');
    } finally {
      await receiver.close();
    }
  });
});
