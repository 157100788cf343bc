import {
  AclRedis, createTenant, declaredMetricNames, generateCsv, generatedHeader, identityMapping, LogLine, metricNamesIn, observabilityExpressions, OPERATOR_TOKEN,
  OperatorClient, ServiceProcess, Stack, Tenant, uploadCsv, waitForImport, WebhookReceiver,
} from '@dc/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const METRICS_TOKEN = 'metrics-token-of-the-observability-test';

/**
 * Observability (docs/adr/0032): the queue board on the operator listener, the
 * request id of one API request on every log line about it in the gateway, api-core and the
 * importer, and the apps' /metrics exporting every metric the alert rules and the dashboard read.
 * Every service logs in to a Redis of this test as its own ACL user (docker/redis/acl.js), so the
 * board works within the gateway's read-only selector: the ACL log stays empty.
 */
describe('observability: queue board, request ids across services, metrics', () => {
  const prefix = `obs${randomBytes(4).toString('hex')}`;
  let redis: AclRedis;
  let admin: Redis;
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let dispatcher: ServiceProcess;
  let importer: ServiceProcess | undefined;
  let receiver: WebhookReceiver;
  /** The import enqueued by the board test (no importer runs yet) and run by the request-id test. */
  const requestId = randomUUID();
  let importId = '';
  const rows = 25;

  beforeAll(async () => {
    redis = await AclRedis.start({ prefix });
    admin = redis.admin();
    receiver = await WebhookReceiver.start();
    stack = await Stack.start({
      env: {
        REDIS_KEY_PREFIX: prefix,
        METRICS_TOKEN,
        RATE_LIMIT_PER_MINUTE: '1000000',
        // The test sends its own request ids, as an edge that sets them would (off by default).
        TRUST_REQUEST_ID: 'true',
        // Bounds for a loaded machine (a first enqueue once answered 503 at load 11 on 2 cores): the
        // gateway's wait for api-core, and api-core's bound on adding the job (2 × this).
        NATS_REQUEST_TIMEOUT_MS: '20000',
        REDIS_COMMAND_TIMEOUT_MS: '5000',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RELAY_INTERVAL_MS: '100',
        WEBHOOK_RETRY_DELAY_MS: '200',
        WEBHOOK_RETRY_JITTER_MS: '0',
      },
      appEnv: {
        gateway: redis.envFor('gateway'),
        'api-core': redis.envFor('api-core'),
        importer: redis.envFor('importer'),
        'webhook-dispatcher': redis.envFor('webhook-dispatcher'),
      },
    });
    dispatcher = await stack.startService('webhook-dispatcher');
    await dispatcher.waitForLog((l) => l.msg === 'webhook-dispatcher ready', 20_000);
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator);
  }, 60_000);

  afterAll(async () => {
    admin?.disconnect();
    await receiver?.close();
    await stack?.stop();
    await redis?.stop();
  });

  const board = (path: string, authorization?: string, method = 'GET') =>
    fetch(`${stack.operatorUrl}/operator/queues${path}`, { method, headers: authorization ? { authorization } : {} });
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('the queue board: 401 with a Basic challenge without the operator token; bearer or Basic open it; it lists both queues and a waiting import job, read-only', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', basic('ops', 'wrong-token'), basic(OPERATOR_TOKEN, ''), `Basic ${OPERATOR_TOKEN}`, `Bearer ${METRICS_TOKEN}`]) {
      for (const path of ['', '/api/queues']) {
        const refused = await board(path, authorization);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toBe('Basic realm="queues", charset="UTF-8"');
        const body = (await refused.json()) as { error: { code: string; requestId: string } };
        expect(body.error.code).toBe('unauthorized');
        expect(body.error.requestId).toBe(refused.headers.get('x-request-id'));
      }
    }
    for (const authorization of [`Bearer ${OPERATOR_TOKEN}`, basic('ops', OPERATOR_TOKEN), basic('', OPERATOR_TOKEN)]) {
      const page = await board('', authorization);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('<base href="/operator/queues/" />');
    }

    // An import, created with the caller's request id; no importer runs yet, so its job waits.
    const csv = generateCsv(rows, { prefix: 'obs' });
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, tenant.portfolioIds[0], csv);
    const enqueued = await fetch(`${stack.publicUrl}/public/v1/portfolios/${tenant.portfolioIds[0]}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ storageKey, columnMapping: identityMapping(generatedHeader()) }),
    });
    expect([enqueued.status, enqueued.status === 202 ? '' : await enqueued.text()]).toEqual([202, '']);
    expect(enqueued.headers.get('x-request-id')).toBe(requestId);
    importId = ((await enqueued.json()) as { data: { id: string } }).data.id;

    // Import jobs carry a priority (their place in their organization, docs/adr/0043): BullMQ keeps them as prioritized.
    const listed = await board('/api/queues?activeQueue=imports&status=prioritized&page=1&jobsPerPage=10', basic('ops', OPERATOR_TOKEN));
    expect(listed.status).toBe(200);
    const { queues } = (await listed.json()) as {
      queues: Array<{ name: string; readOnlyMode: boolean; counts: Record<string, number>; jobs: Array<{ id: string; data: Record<string, unknown> }> }>;
    };
    expect(queues.map((q) => q.name)).toEqual(['imports', 'webhook-deliveries']);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);
    const imports = queues[0];
    expect(imports.counts.prioritized).toBe(1);
    expect(imports.jobs).toEqual([expect.objectContaining({ id: importId, data: { importId, organizationId: tenant.organizationId, requestId } })]);
    expect(queues[1].counts).toEqual(expect.objectContaining({ waiting: 0, active: 0 }));

    // Read-only: the board changes nothing in a queue.
    const pause = await board('/api/queues/imports/pause', `Bearer ${OPERATOR_TOKEN}`, 'PUT');
    expect(pause.status).toBe(405);
    expect(await admin.hget(`{${prefix}}:imports:meta`, 'paused')).toBeNull();
  });

  it("the request id reaches every log line about the request: the gateway's, api-core's (all of them while it handles requests) and the importer's", async () => {
    expect(importId).not.toBe('');
    const core = stack.apiCores[0];
    importer = await stack.startService('importer');
    const done = await waitForImport(stack.publicUrl, tenant.key, importId);
    expect(done).toMatchObject({ status: 'completed', created: rows, errors: 0 });

    const gateway = stack.gateways[0].process;
    const about = (line: LogLine) => line.requestId === requestId;
    expect(gateway.logs.filter(about)).toEqual(
      expect.arrayContaining([expect.objectContaining({ msg: 'request', method: 'POST', route: '/public/v1/portfolios/:id/imports', status: 202 })]),
    );
    expect(core.logs.filter(about)).toEqual([expect.objectContaining({ msg: 'handled', pattern: 'imports.enqueue', service: 'api-core' })]);
    // Every api-core line after start-up was written while handling a request: each names its request.
    const ready = core.logs.findIndex((l) => l.msg === 'api-core ready');
    expect(ready).toBeGreaterThanOrEqual(0);
    const handling = core.logs.slice(ready + 1);
    expect(handling.length).toBeGreaterThan(5);
    expect(handling.filter((l) => typeof l.requestId !== 'string' || l.requestId === '')).toEqual([]);

    // The importer's lines about the import: the request that created it, the job and the import.
    await importer.waitForLog((l) => l.msg === 'import completed' && l.importId === importId);
    const importLines = importer.logs.filter((l) => l.importId === importId);
    expect(importLines.map((l) => l.msg)).toEqual(expect.arrayContaining(['import started', 'import completed']));
    for (const line of importLines) expect(line).toMatchObject({ requestId, jobId: importId, importId, service: 'importer' });
  }, 60_000);

  it("a webhook delivery's job logs under the request id that wrote its event, with the job and delivery ids", async () => {
    await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, { url: receiver.url });
    // The receiver refuses the first attempt: the dispatcher then logs about the delivery.
    const debtors = await fetch(`${stack.publicUrl}/public/v1/debtors?portfolioId=${tenant.portfolioIds[0]}`, { headers: { authorization: `Bearer ${tenant.key}` } });
    const debtorId = ((await debtors.json()) as { data: Array<{ id: string }> }).data[0].id;
    const paymentRequestId = randomUUID();
    receiver.answerNext({ status: 500, body: 'not yet' });
    const paid = await fetch(`${stack.publicUrl}/public/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'x-request-id': paymentRequestId },
      body: JSON.stringify({ externalId: 'obs-pay-1', portfolioId: tenant.portfolioIds[0], debtorId, amount: 10, currency: 'EUR', paymentDate: '2026-01-15', method: 'card' }),
    });
    expect(paid.status).toBe(201);
    await receiver.waitForCount(2, 20_000);
    const failed = await dispatcher.waitForLog((l) => l.msg === 'webhook attempt failed');
    expect(failed).toMatchObject({ requestId: paymentRequestId, jobId: failed.deliveryId, deliveryId: expect.stringMatching(/^dlv_/), statusCode: 500 });
  }, 60_000);

  it('every metric the alert rules and the dashboard read is exported by an app; the apps serve /metrics to the metrics token only', async () => {
    const healthPort = async (process: ServiceProcess, ready: string) => String((await process.waitForLog((l) => l.msg === ready)).healthPort);
    const running = importer ?? (await stack.startService('importer'));
    const endpoints: Record<string, string> = {
      gateway: `${stack.operatorUrl}/metrics`,
      'api-core': `http://127.0.0.1:${await healthPort(stack.apiCores[0], 'api-core ready')}/metrics`,
      importer: `http://127.0.0.1:${await healthPort(running, 'importer ready')}/metrics`,
      'webhook-dispatcher': `http://127.0.0.1:${await healthPort(dispatcher, 'webhook-dispatcher ready')}/metrics`,
    };
    const expositions: Record<string, string> = {};
    for (const [app, url] of Object.entries(endpoints)) {
      expect([app, (await fetch(url)).status]).toEqual([app, 401]);
      expect([app, (await fetch(url, { headers: { authorization: 'Bearer not-the-token' } })).status]).toEqual([app, 401]);
      const res = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect([app, res.status]).toEqual([app, 200]);
      expect(res.headers.get('content-type')).toContain('text/plain');
      expositions[app] = await res.text();
    }
    const exported = new Set(Object.values(expositions).flatMap((text) => [...declaredMetricNames(text)]));
    exported.add('up'); // written by Prometheus for each target
    const used = [...new Set(observabilityExpressions().flatMap(metricNamesIn))].sort();
    expect(used.length).toBeGreaterThan(15);
    expect(used.filter((name) => !exported.has(name))).toEqual([]);

    // The series behind them carry what this test did, under the labels the panels group by.
    expect(expositions.gateway).toMatch(/^http_request_duration_seconds_count\{listener="public",method="POST",route="\/public\/v1\/portfolios\/:id\/imports",status_code="202"\} 1$/m);
    expect(expositions.gateway).toMatch(/^gateway_core_request_duration_seconds_count\{pattern="imports\.enqueue",outcome="ok"\} 1$/m);
    expect(expositions['api-core']).toMatch(/^api_core_rpc_duration_seconds_count\{pattern="imports\.enqueue",outcome="ok"\} 1$/m);
    expect(expositions['api-core']).toMatch(/^api_core_rpc_in_flight 0$/m);
    expect(expositions.importer).toMatch(new RegExp(`^import_rows_total ${rows}$`, 'm'));
    expect(expositions.importer).toMatch(/^import_job_duration_seconds_count\{outcome="completed"\} 1$/m);
    expect(expositions.importer).toMatch(/^queue_jobs\{queue="imports",state="waiting"\} 0$/m);
    expect(expositions['webhook-dispatcher']).toMatch(/^queue_jobs\{queue="webhook-deliveries",state="waiting"\} 0$/m);
    for (const text of Object.values(expositions)) expect(text).toMatch(/^process_resident_memory_bytes \d+/m);

    // Nothing any service did here, the board included, was refused by the Redis ACL.
    expect(await admin.call('ACL', 'LOG')).toEqual([]);
  }, 60_000);
});
