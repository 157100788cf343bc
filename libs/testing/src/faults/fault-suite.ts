import type { ImportView } from '@dc/contracts';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { generateCsv, generatedHeader, generatedRow, GeneratedRowOptions, identityMapping, sendUpload } from '../import-client';
import { createTenant, OperatorClient, Tenant } from '../operator-client';
import { ServiceProcess } from '../service-process';
import { Stack } from '../stack';
import { withDatabase } from '../test-database';
import { WebhookReceiver } from '../webhook-receiver';
import { AttemptLog, Limits, LoadAnswer, OpKind, retryDelay, SentOp, sleep } from './load';
import { PrivateNats, PrivatePostgres, PrivateRedis } from './private-servers';

/**
 * The fault suite (docs/adr/0028): a mixed load through the gateway — reads, debtor batches
 * with Idempotency-Key, payments (idempotent by externalId), a CSV import, webhook deliveries to a
 * local receiver — while each fault is injected in turn: kill -9 of every service and its restart,
 * a stop and restart of Redis, NATS and Postgres (private servers, never the machine's shared ones).
 * One row of figures per fault; the verdict is read from the database and the receiver once
 * everything has settled.
 */

export type FaultKind =
  | 'kill -9 gateway'
  | 'kill -9 api-core'
  | 'kill -9 importer'
  | 'kill -9 webhook-dispatcher'
  | 'stop redis'
  | 'stop nats'
  | 'stop postgres';

export const FAULT_KINDS: readonly FaultKind[] = [
  'kill -9 gateway', 'kill -9 api-core', 'kill -9 importer', 'kill -9 webhook-dispatcher', 'stop redis', 'stop nats', 'stop postgres',
];

export interface FaultProfile {
  name: string;
  /** Load before the fault is injected. */
  warmupMs: number;
  /** How long the killed service or stopped server stays down. */
  downMs: number;
  /** Load after the restart (then the clients finish what they started, retrying). */
  afterMs: number;
  /** Rows of each phase's CSV import. */
  importRows: number;
  faults: readonly FaultKind[];
}

export const SHORT_PROFILE: FaultProfile = { name: 'short', warmupMs: 1_500, downMs: 2_000, afterMs: 2_500, importRows: 6_000, faults: FAULT_KINDS };
export const FULL_PROFILE: FaultProfile = { name: 'full', warmupMs: 5_000, downMs: 15_000, afterMs: 10_000, importRows: 30_000, faults: FAULT_KINDS };

/** Settings of every service of the fault stack (the bounds the table's "hangs" are judged by). */
export const FAULT_ENV = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  NATS_REQUEST_TIMEOUT_MS: '5000',
  DATABASE_STATEMENT_TIMEOUT_MS: '4000',
  DATABASE_CONNECT_TIMEOUT_MS: '2000',
  REDIS_COMMAND_TIMEOUT_MS: '1000',
  // The lease must outlive NATS timeout + connect + statement (11 s, ADR 0014); shorter than the 60 s
  // default so a claim left by a killed gateway frees within the run.
  IDEMPOTENCY_LEASE_MS: '15000',
  IDEMPOTENCY_WAIT_MS: '10000',
  IMPORT_CHUNK_ROWS: '1000',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RELAY_INTERVAL_MS: '100',
  WEBHOOK_RETRY_DELAY_MS: '1000',
  WEBHOOK_RETRY_JITTER_MS: '0',
  WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
  WEBHOOK_MAX_ATTEMPTS: '20',
};

/** ADR 0014's bounds for these settings, plus 1 s for the client and a loaded 2-core machine. */
export const FAULT_LIMITS: Limits = {
  plainMs: 5_000 + 1_000 + 1_000,
  idempotentMs: 10_000 + 5_000 + 1_000 + 1_000,
};

export interface FaultRow {
  fault: string;
  sent: number;
  answered: number;
  /** No answer: the connection was refused or reset (the process was gone). */
  refused: number;
  /** `503 service_unavailable: 12, 409 idempotency_conflict: 3`. */
  errors: Record<string, number>;
  violations: string[];
  hangs: number;
  maxMs: number;
  paymentsAcked: number;
  paymentsLost: number;
  paymentsDuplicated: number;
  batchesAcked: number;
  debtorsLost: number;
  debtorsDuplicated: number;
  /** Batches answered by a second run (ADR 0009: after a timeout whose lease expired): an update, not a duplicate. */
  batchReruns: number;
  importRows: number;
  importRowsLost: number;
  importRowsDuplicated: number;
  /** Whether the fault hit the import while it was running. */
  importHit: boolean;
  webhookEvents: number;
  webhookLost: number;
  webhookNewId: number;
  recoverySeconds: number;
  /** Seconds from the restart to the first success of each kind of request sent after it. */
  recoveryByKind: Record<'read' | 'batch' | 'payment', number>;
  /** Ops the clients could not finish (deadline passed). */
  abandoned: string[];
}

interface ImportProgress {
  view?: ImportView;
  done?: ImportView;
  error?: string;
  startedAt: number;
}

interface Phase {
  fault: FaultKind;
  index: number;
  portfolioId: string;
  importPortfolioId: string;
  log: AttemptLog;
  stopping: boolean;
  debtorIds: string[];
  batches: SentOp[];
  payments: SentOp[];
  workers: Promise<void>[];
  importer: Promise<void>;
  importProgress: ImportProgress;
  injectedAt: number;
  restoredAt: number;
  /** Importer/dispatcher kills: when their work moved again after the restart. */
  workResumedAt?: number;
  importHit: boolean;
  /** kill -9 importer: ends the transaction that holds the import midway (holdImportMidway). */
  releaseImport?: () => Promise<void>;
}

const OP_DEADLINE_MS = 180_000;
const prefixOf = (phase: Phase) => `f${phase.index}`;
const importRowOptions = (phase: Phase): GeneratedRowOptions => ({ prefix: `${prefixOf(phase)}i`, email: false, payments: true });

export interface DuplicateResult {
  batch: { statuses: Record<string, number>; processed: number; replays: number; conflicts: number; bodiesIdentical: boolean; debtors: number };
  payment: { statuses: Record<string, number>; rows: number; outboxEvents: number; deliveries: number; received: number };
}

export class FaultSuite {
  private readonly phases: Phase[] = [];
  private importer!: ServiceProcess;
  private dispatcher!: ServiceProcess;
  private tenant!: Tenant;
  private receiver!: WebhookReceiver;
  readonly notes: string[] = [];

  private constructor(
    readonly profile: FaultProfile,
    readonly postgres: PrivatePostgres,
    readonly redis: PrivateRedis,
    readonly nats: PrivateNats,
    readonly stack: Stack,
  ) {}

  static async start(profile: FaultProfile): Promise<FaultSuite> {
    const [postgres, redis, nats] = await Promise.all([PrivatePostgres.create(), PrivateRedis.create(), PrivateNats.create()]);
    let stack: Stack | undefined;
    try {
      const database = await postgres.createDatabase();
      stack = await Stack.start({ database, env: { ...FAULT_ENV, REDIS_URL: redis.url, NATS_URL: nats.url } });
      const suite = new FaultSuite(profile, postgres, redis, nats, stack);
      [suite.importer, suite.dispatcher] = await Promise.all([suite.startWorker('importer'), suite.startWorker('webhook-dispatcher')]);
      suite.tenant = await createTenant(suite.operator, { name: 'Faults' });
      suite.receiver = await WebhookReceiver.start({ status: 200, body: '' });
      await suite.operator.expect(201, 'POST', `/organizations/${suite.tenant.organizationId}/webhooks`, { url: suite.receiver.url });
      return suite;
    } catch (err) {
      await stack?.stop();
      await Promise.all([postgres.destroy(), redis.destroy(), nats.destroy()]);
      throw err;
    }
  }

  async stop(): Promise<void> {
    for (const phase of this.phases) phase.stopping = true;
    for (const phase of this.phases) await phase.releaseImport?.();
    await this.receiver?.close();
    await this.stack.stop();
    await Promise.all([this.postgres.destroy(), this.redis.destroy(), this.nats.destroy()]);
  }

  /** The operator API of the current first gateway (its operator port changes when it restarts). */
  private get operator(): OperatorClient {
    return new OperatorClient(this.stack.operatorUrl);
  }

  /** Every process started, killed ones included (their logs explain a bad row). */
  private readonly workers: ServiceProcess[] = [];

  /** Writes every service's warn and error lines to `dir`, one file per process. */
  writeLogs(dir: string): void {
    mkdirSync(dir, { recursive: true });
    const all = [...this.stack.gateways.map((g) => g.process), ...this.stack.apiCores, ...this.workers];
    all.forEach((p, i) => {
      const lines = p.logs.filter((l) => ['warn', 'error', 'fatal'].includes(String(l.level))).map((l) => JSON.stringify(l));
      writeFileSync(path.join(dir, `${p.app}-${i}.log`), `${lines.join('\n')}\n${p.errorOutput}`);
    });
  }

  private async startWorker(app: 'importer' | 'webhook-dispatcher'): Promise<ServiceProcess> {
    const service = await this.stack.startService(app);
    this.workers.push(service);
    await service.waitForLog((l) => l.msg === `${app} ready`, 30_000);
    return service;
  }

  private url(path: string): string {
    return `${this.stack.publicUrl}/public/v1${path}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.tenant.key}`, 'content-type': 'application/json', ...extra };
  }

  private async newPortfolio(name: string): Promise<string> {
    const pf = await this.operator.expect(201, 'POST', `/organizations/${this.tenant.organizationId}/portfolios`, { identityName: name, identityCurrency: ['EUR'] });
    return pf.data.id as string;
  }

  // ---------------------------------------------------------------- 50 identical requests at once

  /**
   * 50 identical debtor batches with one Idempotency-Key, then 50 identical payments (one externalId),
   * each set sent at once: exactly one processing each.
   */
  async concurrentDuplicates(): Promise<DuplicateResult> {
    const portfolioId = await this.newPortfolio('Duplicates');
    const batch = { debtors: Array.from({ length: 20 }, (_, i) => debtor(`dup-${i}`)) };
    const batchAnswers = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(this.url(`/portfolios/${portfolioId}/debtors`), { method: 'POST', headers: this.headers({ 'idempotency-key': 'dup-batch' }), body: JSON.stringify(batch) })
          .then(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed') === 'true', text: await r.text() }))),
    );
    const ok = batchAnswers.filter((a) => a.status === 200);
    const debtors = await this.sql(async (c) => (await c.query('SELECT count(*)::int AS n FROM debtors WHERE portfolio_id = $1', [portfolioId])).rows[0].n as number);
    const statuses = (list: { status: number; replayed?: boolean }[]) =>
      list.reduce<Record<string, number>>((acc, a) => ((acc[`${a.status}${a.replayed ? ' replayed' : ''}`] = (acc[`${a.status}${a.replayed ? ' replayed' : ''}`] ?? 0) + 1), acc), {});

    const debtorId = JSON.parse(ok[0]?.text ?? '{"data":{"results":[{}]}}').data.results[0].id as string;
    const payment = { portfolioId, debtorId, externalId: 'dup-payment', amount: 12.5, paymentDate: '2026-11-01', reference: 'R-1' };
    const paymentAnswers = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(this.url('/payments'), { method: 'POST', headers: this.headers(), body: JSON.stringify(payment) })
          .then(async (r) => ({ status: r.status, body: (await r.json()) as any }))),
    );
    const paymentIds = new Set(paymentAnswers.filter((a) => a.status < 300).map((a) => a.body.data.id as string));
    // The payment row and its outbox event are written with the answer; the delivery row only once
    // the outbox relay has fanned the event out, so it is counted after the webhook has arrived.
    const [rows, events] = await this.sql(async (c) => [
      (await c.query('SELECT count(*)::int AS n FROM payments WHERE portfolio_id = $1', [portfolioId])).rows[0].n as number,
      (await c.query("SELECT count(*)::int AS n FROM outbox_events WHERE portfolio_id = $1 AND type = 'payment.registered'", [portfolioId])).rows[0].n as number,
    ]);
    const [id] = [...paymentIds];
    if (id) await this.receiver.waitFor((r) => this.receiver.matching((b) => b.data?.id === id).includes(r), 20_000, `the delivery of ${id}`);
    const deliveries = await this.sql(
      async (c) =>
        (await c.query('SELECT count(*)::int AS n FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id WHERE e.portfolio_id = $1', [portfolioId])).rows[0].n as number,
    );
    const received = new Set(this.receiver.matching((b) => b.data?.id === id).map((r) => r.json().id as string)).size;
    return {
      batch: {
        statuses: statuses(batchAnswers),
        processed: batchAnswers.filter((a) => a.status === 200 && !a.replayed).length,
        replays: batchAnswers.filter((a) => a.status === 200 && a.replayed).length,
        conflicts: batchAnswers.filter((a) => a.status === 409 && JSON.parse(a.text).error.code === 'idempotency_conflict').length,
        bodiesIdentical: new Set(ok.map((a) => a.text)).size === 1,
        debtors,
      },
      payment: { statuses: statuses(paymentAnswers), rows, outboxEvents: events, deliveries, received: paymentIds.size === 1 ? received : -1 },
    };
  }

  // ---------------------------------------------------------------- faults

  async run(log: (line: string) => void = () => undefined): Promise<FaultRow[]> {
    for (const fault of this.profile.faults) {
      const phase = await this.phase(fault);
      log(`${fault}: injected at +${((phase.injectedAt - phase.log.attempts[0]?.sentAt) / 1000).toFixed(1)} s, restored after ${((phase.restoredAt - phase.injectedAt) / 1000).toFixed(1)} s`);
    }
    // Every client finishes what it started (retrying as the spec says), every import ends.
    const all = Promise.all(this.phases.flatMap((p) => [...p.workers, p.importer]));
    let settled = false;
    void all.then(() => (settled = true));
    while (!settled) {
      await Promise.race([all, sleep(10_000)]);
      if (!settled) log(`waiting for: ${this.outstanding().join('; ')}`);
    }
    await this.settleWebhooks();
    const rows: FaultRow[] = [];
    for (const phase of this.phases) rows.push(await this.measure(phase));
    return rows;
  }

  /** What the clients are still retrying (progress lines of a long settle). */
  private outstanding(): string[] {
    const out: string[] = [];
    for (const p of this.phases) {
      const open = [...p.batches, ...p.payments].filter((o) => !o.acknowledged && !o.abandoned).map((o) => o.key);
      const last = p.log.attempts.slice(-3).map((a) => `${a.kind} ${a.status}${a.code ? ` ${a.code}` : ''}`);
      const v = p.importProgress.view;
      if (open.length || !p.importProgress.done) {
        out.push(`${p.fault}: ops ${open.join(',') || '-'}; import ${v ? `${v.status} ${v.processedRows}/${v.totalRows}` : 'not enqueued'}${p.importProgress.error ? ` (${p.importProgress.error})` : ''}; last ${last.join(', ')}`);
      }
    }
    return out;
  }

  private async phase(fault: FaultKind): Promise<Phase> {
    const index = this.phases.length;
    const [portfolioId, importPortfolioId] = [await this.newPortfolio(`Load ${index}`), await this.newPortfolio(`Import ${index}`)];
    const phase: Phase = {
      fault, index, portfolioId, importPortfolioId, log: new AttemptLog(FAULT_LIMITS), stopping: false, debtorIds: [], batches: [], payments: [],
      workers: [], importer: Promise.resolve(), importProgress: { startedAt: Date.now() }, injectedAt: 0, restoredAt: 0, importHit: false,
    };
    this.phases.push(phase);
    // Debtors for the payments, written before the load starts.
    const seed = await fetch(this.url(`/portfolios/${portfolioId}/debtors`), {
      method: 'POST', headers: this.headers(), body: JSON.stringify({ debtors: Array.from({ length: 10 }, (_, i) => debtor(`${prefixOf(phase)}-seed-${i}`)) }),
    });
    if (seed.status !== 200) throw new Error(`seed batch: ${seed.status} ${await seed.text()}`);
    phase.debtorIds = ((await seed.json()) as any).data.results.map((r: { id: string }) => r.id);

    if (fault === 'kill -9 importer') phase.releaseImport = await this.holdImportMidway(phase);
    phase.importer = this.runImport(phase);
    phase.workers.push(this.reader(phase), this.batcher(phase, 0), this.batcher(phase, 1), this.payer(phase, 0), this.payer(phase, 1));
    await sleep(this.profile.warmupMs);
    if (fault === 'kill -9 importer') await this.untilImportRunning(phase);

    phase.injectedAt = Date.now();
    phase.importHit = this.importRunning(phase);
    await this.inject(phase);
    phase.restoredAt = Date.now();

    await sleep(this.profile.afterMs);
    // The load goes on until every kind of request has succeeded again (or 60 s), so recovery is measured.
    const recoveredBy = Date.now() + 60_000;
    while (Date.now() < recoveredBy && (['read', 'batch', 'payment'] as const).some((k) => !this.firstOk(phase, k))) await sleep(100);
    phase.stopping = true;
    return phase;
  }

  private async inject(phase: Phase): Promise<void> {
    const down = () => sleep(this.profile.downMs);
    switch (phase.fault) {
      case 'kill -9 gateway':
        await this.stack.gateways[0].process.stop('SIGKILL');
        await down();
        await this.stack.startGateway();
        return;
      case 'kill -9 api-core':
        await this.stack.apiCores[this.stack.apiCores.length - 1].stop('SIGKILL');
        await down();
        await this.stack.startApiCore();
        return;
      case 'kill -9 importer': {
        await this.importer.stop('SIGKILL');
        await phase.releaseImport?.();
        await down();
        this.importer = await this.startWorker('importer');
        return;
      }
      case 'kill -9 webhook-dispatcher':
        await this.dispatcher.stop('SIGKILL');
        await down();
        this.dispatcher = await this.startWorker('webhook-dispatcher');
        return;
      case 'stop redis':
      case 'stop nats':
      case 'stop postgres': {
        const server = { 'stop redis': this.redis, 'stop nats': this.nats, 'stop postgres': this.postgres }[phase.fault];
        await server.stop();
        await down();
        await server.start();
        return;
      }
    }
  }

  // ---------------------------------------------------------------- clients

  private async reader(phase: Phase): Promise<void> {
    let n = 0;
    while (!phase.stopping) {
      const path = n % 2 === 0 ? `/debtors?portfolioId=${phase.portfolioId}&limit=20` : `/payments?portfolioId=${phase.portfolioId}&limit=20`;
      n += 1;
      const answer = await phase.log.send('read', this.url(path), { headers: this.headers() });
      await sleep(answer.status === 200 ? 40 : retryDelay(answer));
    }
  }

  private async batcher(phase: Phase, worker: number): Promise<void> {
    for (let n = 0; !phase.stopping; n += 1) {
      const key = `${prefixOf(phase)}-b${worker}-${n}`;
      const body = JSON.stringify({ debtors: Array.from({ length: 10 }, (_, i) => debtor(`${key}-${i}`)) });
      const op: SentOp = { key, acknowledged: false, reruns: 0 };
      phase.batches.push(op);
      await this.untilDone(phase, op, 'batch', `/portfolios/${phase.portfolioId}/debtors`, body, { 'idempotency-key': key }, (answer, attempt) => {
        if (answer.status !== 200) return false;
        const results = answer.body.data.results as { id: string; status: string }[];
        op.ids = results.map((r) => r.id);
        // A later attempt answered by a run of its own (not a replay) found the rows of an earlier run.
        if (attempt > 1 && answer.headers?.get('idempotent-replayed') !== 'true' && results.some((r) => r.status === 'updated')) op.reruns = 1;
        return true;
      });
      await sleep(20);
    }
  }

  private async payer(phase: Phase, worker: number): Promise<void> {
    for (let n = 0; !phase.stopping; n += 1) {
      const key = `${prefixOf(phase)}-p${worker}-${n}`;
      const body = JSON.stringify({
        portfolioId: phase.portfolioId, debtorId: phase.debtorIds[(n + worker) % phase.debtorIds.length], externalId: key,
        amount: 10 + (n % 90), paymentDate: '2026-11-01', reference: `R-${key}`,
      });
      const op: SentOp = { key, acknowledged: false };
      phase.payments.push(op);
      await this.untilDone(phase, op, 'payment', '/payments', body, {}, (answer) => {
        if (answer.status !== 201 && answer.status !== 200) return false;
        op.ids = [answer.body.data.id as string];
        return true;
      });
      await sleep(30);
    }
  }

  /** Sends one operation until it succeeds (retrying as the spec says), its answer is wrong, or the deadline passes. */
  private async untilDone(
    phase: Phase, op: SentOp, kind: 'batch' | 'payment', path: string, body: string, headers: Record<string, string>,
    succeeded: (answer: LoadAnswer, attempt: number) => boolean,
  ): Promise<void> {
    const deadline = Date.now() + OP_DEADLINE_MS;
    for (let attempt = 1; ; attempt += 1) {
      const answer = await phase.log.send(kind, this.url(path), { method: 'POST', headers: this.headers(headers), body, idempotent: kind === 'batch' }, kind === 'batch');
      if (succeeded(answer, attempt)) {
        op.acknowledged = true;
        return;
      }
      // 500's message says "Retry later": a client retries it too (safe with the same key), but the
      // answer stays a violation in the table — a fault must be a 503 with Retry-After.
      const transient = answer.status <= 0 || answer.status === 503 || answer.status === 429 || answer.status === 500 || (kind === 'batch' && answer.status === 409);
      if (!transient) {
        op.abandoned = `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`;
        return;
      }
      if (Date.now() > deadline) {
        op.abandoned = `no success within ${OP_DEADLINE_MS} ms (last ${answer.status})`;
        return;
      }
      await sleep(retryDelay(answer));
    }
  }

  // ---------------------------------------------------------------- the import

  private importRunning(phase: Phase): boolean {
    const v = phase.importProgress.view;
    return !!v && v.status === 'processing' && !phase.importProgress.done;
  }

  /**
   * Holds the import midway on any machine (a fast one finished the whole file before the kill): an
   * open transaction inserts a live debtor with the external id of a row in the file's second half,
   * so the merge of that row's chunk waits on the unique index while the chunks before it are
   * merged. Rolled back right after the kill: the killed importer's waiting statement then ends with
   * its connection, and the new importer merges the row as new.
   */
  private async holdImportMidway(phase: Phase): Promise<() => Promise<void>> {
    const client = new Client({ connectionString: this.stack.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    // The file's payment id of the row at 60 %, held by an uncommitted payment: the chunk that
    // registers it waits on payments_import_external_id_key (live external ids may repeat, ADR 0041).
    const row = generatedRow(Math.floor(this.profile.importRows * 0.6), importRowOptions(phase));
    const paymentId = row[generatedHeader(importRowOptions(phase)).indexOf('payment_external_id')];
    const debtorId = `hold-${randomUUID()}`;
    await client.query('INSERT INTO debtors (id, portfolio_id, external_id) VALUES ($1, $2, $3)', [debtorId, phase.importPortfolioId, `${debtorId}-x`]);
    await client.query(
      `INSERT INTO payments (id, portfolio_id, debtor_id, amount, currency, payment_date, source, import_external_id)
       VALUES ($1, $2, $3, 1, 'EUR', '2026-06-30', 'import', $4)`,
      [`hold-${randomUUID()}`, phase.importPortfolioId, debtorId, paymentId],
    );
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await client.query('ROLLBACK').finally(() => client.end());
    };
  }

  private async untilImportRunning(phase: Phase): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(this.importRunning(phase) && (phase.importProgress.view?.processedRows ?? 0) > 0) && !phase.importProgress.done && Date.now() < deadline) await sleep(20);
  }

  /** Upload, enqueue with an Idempotency-Key and poll to the end, each step retried through the fault. */
  private async runImport(phase: Phase): Promise<void> {
    const progress = phase.importProgress;
    const csv = generateCsv(this.profile.importRows, importRowOptions(phase));
    const retrying = async <T>(step: () => Promise<T | undefined>): Promise<T> => {
      const deadline = Date.now() + OP_DEADLINE_MS;
      for (;;) {
        const value = await step().catch(() => undefined);
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error('import step: no success within the deadline');
        await sleep(250);
      }
    };
    try {
      const target = await retrying(async () => {
        const a = await phase.log.send('import', this.url(`/portfolios/${phase.importPortfolioId}/imports/upload-url`), { method: 'POST', headers: this.headers(), body: '{}' });
        return a.status === 201 ? a.body.data : undefined;
      });
      await retrying(async () => ((await sendUpload(target, csv)).status === 200 ? true : undefined));
      const enqueueBody = JSON.stringify({ storageKey: target.storageKey, columnMapping: identityMapping(generatedHeader(importRowOptions(phase))), conflictResolution: 'add' });
      const queued: ImportView = await retrying(async () => {
        const a = await phase.log.send('import', this.url(`/portfolios/${phase.importPortfolioId}/imports`), {
          method: 'POST', headers: this.headers({ 'idempotency-key': `${prefixOf(phase)}-import` }), body: enqueueBody, idempotent: true,
        }, true);
        return a.status === 202 ? a.body.data : undefined;
      });
      const deadline = Date.now() + 240_000;
      let movedAfterRestart = false;
      for (;;) {
        const a = await phase.log.send('import', this.url(`/imports/${queued.id}`), { headers: this.headers() });
        if (a.status === 200) {
          const view = a.body.data as ImportView;
          if (phase.fault === 'kill -9 importer' && phase.restoredAt && !movedAfterRestart && progress.view && view.processedRows > progress.view.processedRows) {
            movedAfterRestart = true;
            phase.workResumedAt = Date.now();
          }
          progress.view = view;
          if (view.status === 'completed' || view.status === 'failed') {
            progress.done = view;
            return;
          }
        }
        if (Date.now() > deadline) throw new Error(`import ${queued.id} did not end within 240 s: ${JSON.stringify(progress.view)}`);
        await sleep(a.status === 200 ? 100 : retryDelay(a));
      }
    } catch (err) {
      progress.error = (err as Error).message;
    }
  }

  // ---------------------------------------------------------------- verdict

  private sql<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    return withDatabase(this.stack.databaseUrl, fn);
  }

  /** Waits until every outbox event is relayed and every delivery has succeeded (or 120 s). */
  private async settleWebhooks(): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const pending = await this.sql(async (c) => (await c.query(
        `SELECT (SELECT count(*) FROM outbox_events WHERE relayed_at IS NULL)::int + (SELECT count(*) FROM webhook_deliveries WHERE status <> 'succeeded')::int AS n`,
      )).rows[0].n as number);
      if (pending === 0 || Date.now() > deadline) {
        if (pending) this.notes.push(`${pending} outbox events or deliveries still pending after 120 s`);
        return;
      }
      await sleep(250);
    }
  }

  private firstOk(phase: Phase, kind: OpKind) {
    return phase.log.attempts.find((a) => a.kind === kind && a.sentAt >= phase.restoredAt && a.status >= 200 && a.status < 300);
  }

  private async measure(phase: Phase): Promise<FaultRow> {
    const { attempts } = phase.log;
    const errors: Record<string, number> = {};
    for (const a of attempts) if (a.status >= 400) errors[`${a.status} ${a.code ?? '?'}`] = (errors[`${a.status} ${a.code ?? '?'}`] ?? 0) + 1;
    const violations = [...new Set(attempts.filter((a) => a.violation).map((a) => `${a.kind}: ${a.violation}`))];
    const hangs = attempts.filter((a) => a.status === -1 || a.ms > phase.log.bound(a)).length;

    // Recovery: for each kind of request, the first success among the attempts sent after the restart.
    const recovery = Object.fromEntries((['read', 'batch', 'payment'] as const).map((k) => {
      const a = this.firstOk(phase, k);
      return [k, a ? (a.sentAt + a.ms - phase.restoredAt) / 1000 : Number.POSITIVE_INFINITY];
    })) as Record<'read' | 'batch' | 'payment', number>;
    const recoveredAt = Math.max(
      ...Object.values(recovery).map((s) => phase.restoredAt + s * 1000),
      phase.fault === 'kill -9 importer' && phase.importHit ? (phase.workResumedAt ?? Number.POSITIVE_INFINITY) : 0,
      // The dispatcher's work moved again: the first delivery that reached the receiver after the restart.
      phase.fault === 'kill -9 webhook-dispatcher' ? (this.receiver.requests.find((r) => r.receivedAt > phase.restoredAt)?.receivedAt ?? Number.POSITIVE_INFINITY) : 0,
    );

    const prefix = prefixOf(phase);
    const verdict = await this.sql(async (c) => {
      const payments = (await c.query(
        `SELECT p.external_id AS key, p.id, (SELECT count(*)::int FROM outbox_events e WHERE e.portfolio_id = p.portfolio_id AND e.type = 'payment.registered' AND e.payload->>'id' = p.id) AS events
           FROM payments p WHERE p.portfolio_id = $1`, [phase.portfolioId])).rows as { key: string; id: string; events: number }[];
      const debtors = (await c.query(
        `SELECT external_id AS key, count(*)::int AS n FROM debtors WHERE portfolio_id = $1 AND deleted_at IS NULL AND external_id NOT LIKE $2 GROUP BY external_id`,
        [phase.portfolioId, `${prefix}-seed-%`])).rows as { key: string; n: number }[];
      const imported = (await c.query(
        `SELECT count(*)::int AS n, count(DISTINCT identity_document_number)::int AS distinct_docs FROM debtors WHERE portfolio_id = $1 AND deleted_at IS NULL`,
        [phase.importPortfolioId])).rows[0] as { n: number; distinct_docs: number };
      const importedDebts = (await c.query(
        `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct_ids FROM debts WHERE portfolio_id = $1 AND deleted_at IS NULL`,
        [phase.importPortfolioId])).rows[0] as { n: number; distinct_ids: number };
      const importedPayments = (await c.query(
        `SELECT count(*)::int AS n, count(DISTINCT import_external_id)::int AS distinct_ids FROM payments WHERE portfolio_id = $1`,
        [phase.importPortfolioId])).rows[0] as { n: number; distinct_ids: number };
      const imports = (await c.query('SELECT count(*)::int AS n FROM imports WHERE portfolio_id = $1', [phase.importPortfolioId])).rows[0].n as number;
      const deliveries = (await c.query(
        `SELECT e.payload->>'id' AS payment, count(d.id)::int AS n FROM outbox_events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id
          WHERE e.portfolio_id = $1 AND e.type = 'payment.registered' GROUP BY e.id`, [phase.portfolioId])).rows as { payment: string; n: number }[];
      return { payments, debtors, imported, importedDebts, importedPayments, imports, deliveries };
    });

    // Payments: each acknowledged externalId is one row with one event; none else exists.
    const rowsByKey = new Map<string, number>();
    for (const p of verdict.payments) rowsByKey.set(p.key, (rowsByKey.get(p.key) ?? 0) + 1);
    const acked = phase.payments.filter((p) => p.acknowledged);
    const paymentsLost = acked.filter((p) => !rowsByKey.has(p.key)).length + phase.payments.filter((p) => p.abandoned).length;
    const paymentsDuplicated = [...rowsByKey.values()].reduce((s, n) => s + n - 1, 0)
      + verdict.payments.reduce((s, p) => s + Math.abs(p.events - 1), 0)
      + verdict.payments.filter((p) => !phase.payments.some((op) => op.key === p.key)).length;

    // Debtor batches: each acknowledged batch's 10 debtors exist once.
    const debtorCount = new Map(verdict.debtors.map((d) => [d.key, d.n]));
    const batchesAcked = phase.batches.filter((b) => b.acknowledged);
    let debtorsLost = phase.batches.filter((b) => b.abandoned).length * 10;
    for (const b of batchesAcked) for (let i = 0; i < 10; i += 1) if (!debtorCount.has(`${b.key}-${i}`)) debtorsLost += 1;
    const debtorsDuplicated = verdict.debtors.reduce((s, d) => s + d.n - 1, 0);

    // The import: every row of the file once (its debtor, debt and payment), in one import.
    const rows = this.profile.importRows;
    const done = phase.importProgress.done;
    const importRowsLost = Math.max(rows - verdict.imported.distinct_docs, 0) + Math.max(rows - verdict.importedPayments.distinct_ids, 0);
    const importRowsDuplicated = verdict.imported.n - verdict.imported.distinct_docs + (verdict.importedDebts.n - verdict.importedDebts.distinct_ids)
      + (verdict.importedPayments.n - verdict.importedPayments.distinct_ids) + (verdict.imports - 1) * rows;

    // Webhooks: every payment event reached the receiver under exactly one delivery id.
    const idsByPayment = new Map<string, Set<string>>();
    for (const r of this.receiver.requests) {
      let body: any;
      try {
        body = r.json();
      } catch {
        continue;
      }
      if (!body?.data?.id) continue;
      const set = idsByPayment.get(body.data.id) ?? new Set<string>();
      set.add(body.id);
      idsByPayment.set(body.data.id, set);
    }
    const webhookLost = verdict.deliveries.filter((d) => d.n === 0 || !idsByPayment.has(d.payment)).length;
    const webhookNewId = verdict.deliveries.filter((d) => d.n > 1 || (idsByPayment.get(d.payment)?.size ?? 0) > 1).length;

    const abandoned = [...phase.batches, ...phase.payments].filter((o) => o.abandoned).map((o) => `${o.key}: ${o.abandoned}`);
    if (phase.importProgress.error) abandoned.push(`import: ${phase.importProgress.error}`);
    if (done && done.status !== 'completed') abandoned.push(`import ended ${done.status}: ${JSON.stringify(done.errorDetails).slice(0, 300)}`);

    return {
      fault: phase.fault,
      sent: attempts.length,
      answered: attempts.filter((a) => a.status > 0).length,
      refused: attempts.filter((a) => a.status === 0).length,
      errors,
      violations,
      hangs,
      maxMs: Math.max(0, ...attempts.map((a) => a.ms)),
      paymentsAcked: acked.length,
      paymentsLost,
      paymentsDuplicated,
      batchesAcked: batchesAcked.length,
      debtorsLost,
      debtorsDuplicated,
      batchReruns: phase.batches.reduce((s, b) => s + (b.reruns ?? 0), 0),
      importRows: verdict.imported.distinct_docs,
      importRowsLost,
      importRowsDuplicated,
      importHit: phase.importHit,
      webhookEvents: verdict.deliveries.length,
      webhookLost,
      webhookNewId,
      recoverySeconds: Number(((recoveredAt - phase.restoredAt) / 1000).toFixed(2)),
      recoveryByKind: recovery,
      abandoned,
    };
  }
}

function debtor(externalId: string) {
  return {
    externalId,
    identityFirstName: 'Ana',
    identityDocumentType: 'national_id',
    identityDocumentNumber: `D-${externalId}`,
    debts: [{ externalId: `${externalId}-d`, totalAmount: 100, currency: 'EUR' }],
  };
}

/** The table of a run (Markdown). */
export function faultTable(rows: FaultRow[]): string {
  const head = [
    'fault', 'requests sent', 'answered', 'refused (no process)', 'envelope errors', 'hangs > bound', 'max ms', 'payments ok / lost / dup',
    'batches ok / debtors lost / dup', 'import rows / lost / dup', 'webhook events / lost / new id', 'recovery s (read / batch / payment)',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const errors = Object.entries(r.errors).map(([k, n]) => `${k} ×${n}`).join(', ') || '—';
    lines.push(`| ${[
      r.fault, r.sent, r.answered, r.refused, errors + (r.violations.length ? ` **violations: ${r.violations.join('; ')}**` : ''), r.hangs, r.maxMs,
      `${r.paymentsAcked} / ${r.paymentsLost} / ${r.paymentsDuplicated}`,
      `${r.batchesAcked} / ${r.debtorsLost} / ${r.debtorsDuplicated}${r.batchReruns ? ` (${r.batchReruns} re-run)` : ''}`,
      `${r.importRows}${r.importHit ? '' : ' (done before the fault)'} / ${r.importRowsLost} / ${r.importRowsDuplicated}`,
      `${r.webhookEvents} / ${r.webhookLost} / ${r.webhookNewId}`,
      `${Number.isFinite(r.recoverySeconds) ? r.recoverySeconds.toFixed(1) : 'never'} (${(['read', 'batch', 'payment'] as const).map((k) => r.recoveryByKind[k].toFixed(1)).join(' / ')})`,
    ].join(' | ')} |`);
  }
  return lines.join('\n');
}
