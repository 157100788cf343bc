import IORedis, { type Redis } from 'ioredis';
import type { Client } from 'pg';
import { sleep } from '../faults/load';
import { PrivateNats, PrivatePostgres, PrivateRedis } from '../faults/private-servers';
import { createTenant, OperatorClient } from '../operator-client';
import { ServiceProcess } from '../service-process';
import { Stack } from '../stack';
import { withDatabase } from '../test-database';
import { WebhookReceiver } from '../webhook-receiver';
import { CpuMeter, MixFigures, NoisyFigures, NoisyNeighbourResult, PeakSampler, PlatformFigures, targetsOf, workSlices } from './figures';
import { NoisyActivity, NoisyLoad, NoisyTenant } from './noisy-tenant';
import { IDEMPOTENCY_REDIS_ARGS, MAIN_REDIS_ARGS, NOISY_ENV, NoisyNeighbourProfile, PROMPT_IMPORT_DEADLINE_MS } from './profile';
import { MixRun, QuietTenant, runMix, warmUp } from './quiet-tenant';
import { quantile, unexpected } from './tenant-api';

/** How long B's webhooks may take to arrive before they count as missing. */
const DELIVERY_WAIT_MS = 30_000;
/** A's webhooks: how many on each of its receivers (each event goes to all ten). */
const A_WEBHOOKS = { slow: 4, failing: 3, hanging: 3 } as const;

/**
 * The noisy-neighbour suite (bench/README.md, "noisy-neighbour"): the four services as processes
 * (one importer: the case where A's backlog could hold it) against private Postgres, Redis (main and
 * idempotency, as compose runs them) and NATS, all on 127.0.0.1. Tenant B runs its mix alone, then
 * again while tenant A loads the platform at the documented limits (NoisyLoad); the figures compare
 * B's two runs and measure the platform throughout.
 */
export class NoisyNeighbourSuite {
  private readonly receivers: WebhookReceiver[] = [];
  private readonly redisClients: Redis[] = [];
  private readonly disposables: (() => Promise<void>)[] = [];
  private a!: NoisyTenant;
  private b!: QuietTenant;
  private bReceiver!: WebhookReceiver;
  private aReceivers!: Record<keyof typeof A_WEBHOOKS, WebhookReceiver>;

  private constructor(
    readonly profile: NoisyNeighbourProfile,
    private readonly servers: { postgres: PrivatePostgres; redis: PrivateRedis; idempotency: PrivateRedis; nats: PrivateNats },
    readonly stack: Stack,
    private readonly importer: ServiceProcess,
    private readonly dispatcher: ServiceProcess,
  ) {}

  static async start(profile: NoisyNeighbourProfile): Promise<NoisyNeighbourSuite> {
    const [postgres, redis, idempotency, nats] = await Promise.all([
      PrivatePostgres.create(), PrivateRedis.create(MAIN_REDIS_ARGS), PrivateRedis.create(IDEMPOTENCY_REDIS_ARGS), PrivateNats.create(),
    ]);
    const servers = { postgres, redis, idempotency, nats };
    let stack: Stack | undefined;
    try {
      stack = await Stack.start({
        database: await postgres.createDatabase(),
        env: { ...NOISY_ENV, REDIS_URL: redis.url, IDEMPOTENCY_REDIS_URL: idempotency.url, NATS_URL: nats.url },
      });
      // The importer logs each merged chunk at debug level: the slices of A's work.
      const [importer, dispatcher] = await Promise.all([
        ready(await stack.startService('importer', { LOG_LEVEL: 'debug' })), ready(await stack.startService('webhook-dispatcher')),
      ]);
      const suite = new NoisyNeighbourSuite(profile, servers, stack, importer, dispatcher);
      await suite.setUp();
      return suite;
    } catch (err) {
      await stack?.stop();
      await Promise.all(Object.values(servers).map((s) => s.destroy()));
      throw err;
    }
  }

  async stop(): Promise<void> {
    for (const dispose of this.disposables) await dispose();
    await Promise.all(this.receivers.map((r) => r.close()));
    this.redisClients.forEach((c) => c.disconnect());
    await this.stack.stop();
    await Promise.all(Object.values(this.servers).map((s) => s.destroy()));
  }

  /** Every service's warnings counted by message, its last error lines and its stderr (they explain a missed target). */
  problems(): string {
    return this.processes().map((p) => {
      const warnings: Record<string, number> = {};
      for (const l of p.logs) if (l.level === 'warn') warnings[String(l.msg)] = (warnings[String(l.msg)] ?? 0) + 1;
      const errors = p.logs.filter((l) => l.level === 'error' || l.level === 'fatal').slice(-10).map((l) => JSON.stringify(l));
      return `${p.app}: warnings ${JSON.stringify(warnings)}\n${[...errors, p.errorOutput].filter(Boolean).join('\n')}`;
    }).join('\n');
  }

  private processes(): ServiceProcess[] {
    return [...this.stack.gateways.map((g) => g.process), ...this.stack.apiCores, this.importer, this.dispatcher];
  }

  private sql<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    return withDatabase(this.stack.databaseUrl, fn);
  }

  /** Both tenants, their rows (set-based SQL: the subject is not how they got there) and their webhooks. */
  private async setUp(): Promise<void> {
    const operator = new OperatorClient(this.stack.operatorUrl);
    const activities: NoisyActivity[] = ['imports', 'flood', 'scans', 'payments'];
    const aTenant = await createTenant(operator, { name: 'Noisy A', portfolios: activities.length });
    const keys = { imports: aTenant.key } as Record<NoisyActivity, string>;
    for (const activity of activities.slice(1)) {
      keys[activity] = (await operator.expect(201, 'POST', `/organizations/${aTenant.organizationId}/api-keys`, { name: activity, scopes: ['read', 'write'] })).data.key;
    }
    const bTenant = await createTenant(operator, { name: 'Quiet B', portfolios: 2 });
    const portfolios = Object.fromEntries(activities.map((x, i) => [x, aTenant.portfolioIds[i]])) as Record<NoisyActivity, string>;

    // Ids shaped like the platform's (prefix + 26 characters, which cursors and path ids must be), numbered by `offset`.
    const debtors = (c: Client, portfolioId: string, offset: number, n: number) => c.query(
      `INSERT INTO debtors (id, portfolio_id, external_id, status, identity_first_name, identity_document_type, identity_document_number)
       SELECT 'dbt_' || lpad(($2 + g)::text, 26, '0'), $1, 'seed-' || ($2 + g), 'active', 'Ana', 'national_id', 'DOC-' || ($2 + g)
       FROM generate_series(1, $3) g RETURNING id`, [portfolioId, offset, n]);
    const [bDebtors, aDebtors] = await this.sql(async (c) => {
      const ids = [(await debtors(c, bTenant.portfolioIds[0], 1_000_000, 200)).rows, (await debtors(c, portfolios.payments, 2_000_000, 50)).rows];
      // The portfolio A scans: scanRows payments and calls of 2026 over 1,000 debtors, none matching from=9999-01-01.
      await debtors(c, portfolios.scans, 3_000_000, 1_000);
      await c.query(
        `INSERT INTO payments (id, portfolio_id, debtor_id, amount, currency, payment_date, payment_method, source, created_at, updated_at)
         SELECT 'pay_' || lpad(g::text, 26, '0'), $1, 'dbt_' || lpad((3000001 + g % 1000)::text, 26, '0'), 10, 'EUR',
                '2026-05-' || lpad((g % 28 + 1)::text, 2, '0'), 'transfer', 'panel', now(), now()
         FROM generate_series(1, $2) g`, [portfolios.scans, this.profile.scanRows]);
      await c.query(
        `INSERT INTO calls (id, portfolio_id, debtor_id, direction, status, created_at, updated_at)
         SELECT 'call_' || lpad(g::text, 26, '0'), $1, 'dbt_' || lpad((3000001 + g % 1000)::text, 26, '0'), 'outbound', 'no_answer',
                '2026-05-01'::timestamptz + g * interval '1 minute', now()
         FROM generate_series(1, $2) g`, [portfolios.scans, this.profile.scanRows]);
      await c.query('ANALYZE debtors, payments, calls');
      return ids.map((rows) => rows.map((r: { id: string }) => r.id));
    });
    this.a = { organizationId: aTenant.organizationId, keys, portfolios, debtorIds: aDebtors };
    this.b = { key: bTenant.key, organizationId: bTenant.organizationId, portfolioId: bTenant.portfolioIds[0], importPortfolioId: bTenant.portfolioIds[1], debtorIds: bDebtors };

    const receiver = async (answer: Parameters<typeof WebhookReceiver.start>[0]) => {
      const r = await WebhookReceiver.start(answer);
      this.receivers.push(r);
      return r;
    };
    this.bReceiver = await receiver({ status: 200, body: '' });
    this.aReceivers = { slow: await receiver({ status: 200, body: '', delayMs: 1_000 }), failing: await receiver({ status: 500, body: 'no' }), hanging: await receiver('hang') };
    await operator.expect(201, 'POST', `/organizations/${this.b.organizationId}/webhooks`, { url: this.bReceiver.url });
    for (const [name, count] of Object.entries(A_WEBHOOKS) as [keyof typeof A_WEBHOOKS, number][]) {
      for (let i = 0; i < count; i += 1) {
        await operator.expect(201, 'POST', `/organizations/${this.a.organizationId}/webhooks`, { url: `${this.aReceivers[name].url}${name}/${i}` });
      }
    }
  }

  /** B alone, then A's load and, after its lead, B again beside it; then every import's end and the figures. */
  async run(log: (line: string) => void = () => undefined): Promise<NoisyNeighbourResult> {
    const redis = (name: 'main' | 'idempotency', server: PrivateRedis) => {
      const client = new IORedis(server.url, { maxRetriesPerRequest: 1 });
      this.redisClients.push(client);
      return { name, client };
    };
    const sampler = new PeakSampler(() => [this.importer.pid], [redis('main', this.servers.redis), redis('idempotency', this.servers.idempotency)]);
    sampler.start();

    const load = new NoisyLoad(this.stack.publicUrl, this.a, this.profile, Number(this.stack.env.IMPORT_MAX_FILE_BYTES ?? 1024 ** 3));
    this.disposables.push(() => load.dispose());
    await load.prepare();
    const warm = await warmUp(this.stack.publicUrl, this.b);
    if (warm) await this.bReceiver.waitFor((r) => r.json().data?.id === warm, DELIVERY_WAIT_MS, 'the warm-up payment\'s webhook');
    const cpu = new CpuMeter(() => [process.pid, this.servers.postgres.pid]);
    let cpuFrom = cpu.snapshot();
    const quietRun = await runMix(this.stack.publicUrl, this.b, this.profile, 'quiet', async () => undefined);
    const quietCpu = cpu.between(cpuFrom, cpu.snapshot());
    const quiet = { ...(await this.mixFigures(quietRun)), cpu: quietCpu };
    log(`B alone: ${JSON.stringify(summary(quiet))}`);

    const loadStarted = Date.now();
    load.start(loadStarted + this.profile.leadMs + this.profile.mixMs + 10_000);
    await sleep(this.profile.leadMs);
    let aImporting = false;
    cpuFrom = cpu.snapshot();
    const besideRun = await runMix(this.stack.publicUrl, this.b, this.profile, 'beside', async () => {
      aImporting = await this.sql(async (c) => (await c.query(
        `SELECT count(*)::int AS n FROM imports i JOIN portfolios p ON p.id = i.portfolio_id WHERE p.organization_id = $1 AND i.status = 'processing'`,
        [this.a.organizationId])).rows[0].n > 0);
    });
    const besideCpu = cpu.between(cpuFrom, cpu.snapshot());
    await load.stop();
    const loadEnded = Date.now();
    const beside = { ...(await this.mixFigures(besideRun)), aImporting, cpu: besideCpu };
    log(`B beside A: ${JSON.stringify(summary(beside))}`);

    const largeIds = new Set(load.imports.filter((i) => i.large).map((i) => i.id));
    const stuck = await this.settleImports(largeIds, loadEnded + this.profile.settleMs, log);
    const peaks = await sampler.stop();
    const platform: PlatformFigures = {
      ...peaks,
      exited: this.processes().filter((p) => !p.running).map((p) => `${p.app} (${p.exitDescription})`),
      stuck,
    };
    const a = await this.noisyFigures(load, loadStarted, loadEnded);
    return { profile: this.profile, quiet, beside, a, platform, targets: targetsOf(quiet, beside, a, platform) };
  }

  /** B's figures of one run: its reads, its webhooks' first attempts, its import (waited for), its errors. */
  private async mixFigures(run: MixRun): Promise<MixFigures> {
    const errors = unexpected(run.api.answers, [200, 201, 202]);
    const add = (label: string, n = 1) => (errors[label] = (errors[label] ?? 0) + n);

    // First attempts: B's receiver answers 200 at once, so each payment's first request is its first attempt.
    const firstAt = new Map<string, number>();
    const deadline = Date.now() + DELIVERY_WAIT_MS;
    while (run.paymentIds.some((id) => !firstAt.has(id)) && Date.now() < deadline) {
      for (const r of this.bReceiver.requests) {
        const id = r.json().data?.id as string | undefined;
        if (id && !firstAt.has(id)) firstAt.set(id, r.receivedAt);
      }
      await sleep(100);
    }
    const written = await this.sql(async (c) => (await c.query(
      `SELECT payload->>'id' AS id, extract(epoch FROM created_at) * 1000 AS at FROM outbox_events WHERE type = 'payment.registered' AND payload->>'id' = ANY($1)`,
      [run.paymentIds])).rows as { id: string; at: string }[]);
    const firstAttempts = written.filter((w) => firstAt.has(w.id)).map((w) => firstAt.get(w.id)! - Number(w.at));
    if (run.paymentIds.length > firstAttempts.length) add('webhook not received', run.paymentIds.length - firstAttempts.length);

    const figures: MixFigures = {
      label: run.label, reads: run.api.answers.filter((x) => x.kind === 'read' && x.status === 200).map((x) => x.ms), firstAttempts, errors, requests: run.api.answers.length,
    };
    if (!run.importId) {
      add('import not enqueued');
      return figures;
    }
    const imp = await this.untilEnded(run.importId, PROMPT_IMPORT_DEADLINE_MS);
    figures.importStatus = imp.status;
    if (imp.started) figures.importWaitMs = imp.started - imp.created;
    if (imp.started && imp.finished) figures.importDurationMs = imp.finished - imp.started;
    if (imp.status !== 'completed' || imp.errors) add(`import ${imp.status}${imp.errors ? ` with ${imp.errors} row errors` : ''}`);
    return figures;
  }

  private importRows(where = 'true', params: unknown[] = []) {
    return this.sql(async (c) => (await c.query(
      `SELECT id, status, errors, processed_rows AS "processedRows", total_rows AS "totalRows", failure_reason AS "failureReason",
              extract(epoch FROM created_at) * 1000 AS created, extract(epoch FROM started_at) * 1000 AS started, extract(epoch FROM finished_at) * 1000 AS finished
         FROM imports WHERE ${where} ORDER BY id`, params)).rows.map((r) => ({
      ...r, created: Number(r.created), started: r.started === null ? undefined : Number(r.started), finished: r.finished === null ? undefined : Number(r.finished),
    })) as { id: string; status: string; errors: number; processedRows: number; totalRows: number; failureReason: string | null; created: number; started?: number; finished?: number }[]);
  }

  private async untilEnded(importId: string, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [imp] = await this.importRows('id = $1', [importId]);
      if (imp.status === 'completed' || imp.status === 'failed' || Date.now() > deadline) return imp;
      await sleep(200);
    }
  }

  /**
   * Waits for every import to end, each until its deadline: A's large ones `largeDeadline` (the load's
   * end + settleMs), the others (poison files, B's) PROMPT_IMPORT_DEADLINE_MS after their enqueue.
   * Answers those that had not ended by then.
   */
  private async settleImports(largeIds: ReadonlySet<string>, largeDeadline: number, log: (line: string) => void): Promise<string[]> {
    const deadlineOf = (imp: { id: string; created: number }) => (largeIds.has(imp.id) ? largeDeadline : imp.created + PROMPT_IMPORT_DEADLINE_MS);
    const ended = (status: string) => status === 'completed' || status === 'failed';
    let lastLog = Date.now();
    for (;;) {
      const imports = await this.importRows();
      const now = Date.now();
      const pending = imports.filter((i) => !ended(i.status) && now <= deadlineOf(i));
      if (!pending.length) {
        return imports.filter((i) => (ended(i.status) ? (i.finished ?? 0) > deadlineOf(i) : now > deadlineOf(i)))
          .map((i) => `${i.id} ${i.status} ${i.processedRows}/${i.totalRows} rows`);
      }
      if (now - lastLog > 10_000) {
        lastLog = now;
        log(`waiting for ${pending.length} import(s): ${pending.map((i) => `${i.status} ${i.processedRows}/${i.totalRows}`).join(', ')}`);
      }
      await sleep(500);
    }
  }

  private async noisyFigures(load: NoisyLoad, from: number, to: number): Promise<NoisyFigures> {
    const slices = workSlices(this.importer.logs, new Set(load.imports.map((i) => i.id)), from, to);
    const rows = new Map((await this.importRows()).map((r) => [r.id, r]));
    const outcome = (id: string) => {
      const r = rows.get(id)!;
      return `${r.status}${r.errors ? `, ${r.errors} row errors` : ''}${r.failureReason ? `: ${r.failureReason}` : ''}`;
    };
    const imports: NoisyFigures['imports'] = [];
    for (const kind of [...new Set(load.imports.map((i) => i.kind))]) {
      const ofKind = load.imports.filter((i) => i.kind === kind);
      const outcomes = ofKind.map((i) => outcome(i.id));
      const counts = [...new Set(outcomes)].map((o) => `${outcomes.filter((x) => x === o).length} ${o}`);
      imports.push({ kind: ofKind.length > 1 ? `${ofKind.length} × ${kind}` : kind, outcome: counts.join('; ') });
    }
    const activities = Object.values(load.apis).flatMap((api) => [...new Set(api.answers.map((x) => x.kind))].map((kind) => {
      const answers = api.answers.filter((x) => x.kind === kind);
      const statuses: Record<string, number> = {};
      for (const x of answers) statuses[`${x.status}${x.code ? ` ${x.code}` : ''}`] = (statuses[`${x.status}${x.code ? ` ${x.code}` : ''}`] ?? 0) + 1;
      return { activity: kind, requests: answers.length, statuses, p99Ms: quantile(answers.map((x) => x.ms), 0.99) };
    }));
    const receivers = { slow: this.aReceivers.slow.requests.length, failing: this.aReceivers.failing.requests.length, hanging: this.aReceivers.hanging.requests.length };
    return { slices, imports, oversizedStatus: load.oversizedStatus, activities, receivers };
  }
}

async function ready(service: ServiceProcess): Promise<ServiceProcess> {
  await service.waitForLog((l) => l.msg === `${service.app} ready`, 30_000);
  return service;
}

const summary = (f: MixFigures) => ({
  readP99: quantile(f.reads, 0.99), firstAttemptP99: quantile(f.firstAttempts, 0.99), importWaitMs: f.importWaitMs, importDurationMs: f.importDurationMs, errors: f.errors,
});
