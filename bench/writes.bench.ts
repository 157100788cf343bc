import type { AuthContext } from '@dc/contracts';
import { createTenant, dropDatabase, OPERATOR_TOKEN, OperatorClient, prepareTemplateDatabase, PRODUCTION_LOGGING, ServiceProcess, Stack } from '@dc/testing';
import { Pool } from 'undici';
import { batchBody, postBatch } from './baseline/batch';
import { cpuSeconds, cpuSecondsByCommand } from './baseline/proc';
import { startBaseline } from './baseline/processes';
import { BaselineEnv } from './baseline/protocol';
import { percentile, printTable, runLoad } from './load';
import { numberOption } from './options';

/**
 * Single writes against a bare baseline running the same statements, interleaved in one run
 * (bench/README.md):
 *   npm run bench:writes [-- --debtors 2000 --retries 500 --seconds 5 --warm-up 5 --rounds 5 --connections 32]
 * Project: gateway → NATS → api-core → Postgres, as processes (Stack).
 * Baseline: bare-gateway (Fastify → NATS, the raw body) → bare-write-service (api-core's own
 * statements, built by its builders, through `pg`). Scenarios: POST /v1/payments new (201) and
 * identical retries of payments registered before (200); the operator's promise and call intake (201).
 */
const DEBTORS = Math.max(1, numberOption('debtors', 2000));
/** Payments registered first on each system, then re-sent identically in the retry scenario. */
const RETRIES = Math.max(1, numberOption('retries', 500));
const SECONDS = numberOption('seconds', 5);
const WARM_UP_MS = numberOption('warm-up', SECONDS) * 1000;
const ROUNDS = Math.max(1, numberOption('rounds', 5));
const CONNECTIONS = Math.max(1, numberOption('connections', 32));
const BATCH = 500;
/** api-core's default pool (libs/config, DATABASE_POOL_SIZE); Stack's own default is 4. */
const POOL_SIZE = 10;
const PAYMENTS = '/public/v1/payments';
/** Targets: req/s ratio, p99 ratio (every scenario), api-core's CPU per payment against bare-write-service's. */
const MIN_RPS = 0.8;
const MAX_P99 = 1.5;
const MAX_SERVICE_CPU = 1.5;

const SYSTEMS = ['project', 'baseline'] as const;
type SystemName = (typeof SYSTEMS)[number];
/** The servers both systems share; their CPU per request is part of each system's cost. */
const SHARED_SERVERS = ['postgres', 'nats-server', 'redis-server'] as const;

interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU milliseconds per request of each process involved. */
  cpu: Record<string, number>;
}

const median = (xs: number[]) => (xs.length ? percentile(xs, 50) : Number.NaN);
const num = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Thrown when the two systems do not answer alike: the comparison would mean nothing. */
class AnswersDiffer extends Error {}

/** Undone in reverse order, on success, failure or Ctrl-C. */
const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
const cleanUp = () =>
  (cleaning ??= (async () => {
    for (const step of cleanups.reverse()) await step().catch((err: unknown) => process.stderr.write(`cleanup: ${String(err)}\n`));
  })());

/** Where a scenario's requests go on one system, and the next body to send. */
interface Target {
  baseUrl: string;
  path: string;
  headers: Record<string, string>;
  next: () => string;
}

/** One POST over the load pool: ok when answered `expect`, the body read to the end. */
async function timedPost(pool: Pool, target: Target, expect: number): Promise<{ ok: boolean; ms: number }> {
  const started = performance.now();
  try {
    const res = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.next() });
    await res.body.arrayBuffer();
    return { ok: res.statusCode === expect, ms: performance.now() - started };
  } catch {
    return { ok: false, ms: performance.now() - started };
  }
}

/** Every key of a JSON value with its path, in order (`data`, `data.id`, …). */
const keysOf = (value: unknown, at = ''): string[] =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value).flatMap(([k, v]) => [`${at}${k}`, ...keysOf(v, `${at}${k}.`)]) : [];
const parsed = (text: string): { data?: Record<string, unknown> } | undefined => {
  try {
    return JSON.parse(text) as { data?: Record<string, unknown> };
  } catch {
    return undefined;
  }
};
/** What differs per write; every other field of both systems' answers must be equal. */
const PER_WRITE = new Set(['id', 'externalId', 'createdAt', 'updatedAt']);

/** Problems with `answers` against the first: its keys in its order, its values but PER_WRITE's. */
function unlike(answers: { name: string; json?: { data?: Record<string, unknown> } }[]): string[] {
  const problems: string[] = [];
  const [reference] = answers;
  for (const a of answers.slice(1)) {
    if (keysOf(a.json).join() !== keysOf(reference.json).join()) problems.push(`${a.name}: not the keys of ${reference.name} in its order`);
    for (const [key, value] of Object.entries(reference.json?.data ?? {})) {
      if (!PER_WRITE.has(key) && JSON.stringify(a.json?.data?.[key]) !== JSON.stringify(value)) problems.push(`${a.name}: ${key} differs from ${reference.name}`);
    }
  }
  return problems;
}

async function bench(): Promise<void> {
  if (ROUNDS < 5) log(`note: --rounds ${ROUNDS}: recorded figures need at least 5 interleaved rounds`);
  const minutes = (4 * (2 * WARM_UP_MS / 1000 + ROUNDS * 2 * SECONDS)) / 60;
  log(`${DEBTORS} debtors, ${RETRIES} payments per system to retry, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s; measuring takes about ${minutes.toFixed(1)} min`);

  const template = await prepareTemplateDatabase();
  cleanups.push(() => dropDatabase(template));
  const stack = await Stack.start({ env: { RATE_LIMIT_PER_MINUTE: '1000000', DATABASE_POOL_SIZE: String(POOL_SIZE), ...PRODUCTION_LOGGING } });
  cleanups.push(() => stack.stop());
  stack.discardLogs();

  const tenant = await createTenant(new OperatorClient(stack.operatorUrl));
  const portfolioId = tenant.portfolioIds[0];
  const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };
  const writer = new Pool(stack.publicUrl, { connections: 1 });
  cleanups.push(() => writer.close());
  const call = async (pool: Pool, method: 'GET' | 'POST', path: string, body?: string) => {
    const res = await pool.request({ method, path, headers, body });
    return { status: res.statusCode, text: await res.body.text() };
  };
  const me = await call(writer, 'GET', '/public/v1/me');
  if (me.status !== 200) throw new Error(`GET /me: ${me.status} ${me.text}`);
  const auth: AuthContext = { organizationId: tenant.organizationId, apiKeyId: (JSON.parse(me.text) as { data: { apiKey: { id: string } } }).data.apiKey.id, portfolioIds: [] };

  const started = performance.now();
  const debtorIds: string[] = [];
  for (let at = 0; at < DEBTORS; at += BATCH) {
    debtorIds.push(...(await postBatch(writer, tenant.key, portfolioId, batchBody(`d${at / BATCH}`, Math.min(BATCH, DEBTORS - at)))).ids);
  }
  log(`loaded ${DEBTORS} debtors (2 debts in EUR, 2 phones each) through the batch route in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // The baseline, as processes of its own.
  const baselineEnv = { [BaselineEnv.auth]: JSON.stringify(auth) };
  const { service: bareService, gateway: bareGateway, url: bareUrl } = await startBaseline('bare-write-service', stack, POOL_SIZE, baselineEnv, (stop) => cleanups.push(stop));
  const bare = new Pool(bareUrl, { connections: 1 });
  cleanups.push(() => bare.close());
  const operatorClient = new Pool(stack.operatorUrl, { connections: 1 });
  cleanups.push(() => operatorClient.close());

  const urls: Record<SystemName, string> = { project: stack.publicUrl, baseline: bareUrl };
  const clients: Record<SystemName, Pool> = { project: writer, baseline: bare };
  const processes: Record<string, ServiceProcess> = { gateway: stack.gateways[0].process, 'api-core': stack.apiCores[0], 'bare-gateway': bareGateway, 'bare-write-service': bareService };
  const services: Record<SystemName, [edge: string, service: string]> = { project: ['gateway', 'api-core'], baseline: ['bare-gateway', 'bare-write-service'] };
  const alive = () => {
    const dead = Object.entries(processes).filter(([, p]) => !p.running);
    if (dead.length) throw new Error(`exited during the bench: ${dead.map(([name, p]) => `${name} (${p.exitDescription}) ${p.errorOutput.slice(-2000)}`).join('; ')}`);
  };

  /** A payment of a random debtor, currency omitted (derived: the debtor's single debt currency). */
  const paymentBody = (externalId: string, debtorId = debtorIds[Math.floor(Math.random() * debtorIds.length)]) =>
    JSON.stringify({ portfolioId, debtorId, amount: 12.5, paymentDate: '2026-11-01', externalId });

  // Both systems must answer alike before anything is measured: a new payment 201, the same body
  // again 200 with the same payment, every answer with the keys of the project's first in its
  // order, and its values but for ids, externalId and timestamps.
  const answers: { name: string; expect: number; status: number; text: string; json?: { data?: Record<string, unknown> } }[] = [];
  for (const system of SYSTEMS) {
    const body = paymentBody(`check-${system}`, debtorIds[0]);
    for (const [label, expect] of [['new', 201], ['retry', 200]] as const) {
      const res = await call(clients[system], 'POST', PAYMENTS, body);
      answers.push({ name: `${system} ${label}`, expect, ...res, json: parsed(res.text) });
    }
  }
  const problems = answers.filter((a) => a.status !== a.expect).map((a) => `${a.name}: status ${a.status}, expected ${a.expect}`);
  const [reference] = answers;
  problems.push(...unlike(answers));
  for (let i = 0; i < answers.length; i += 2) {
    const [created, retried] = [answers[i].json?.data?.id, answers[i + 1].json?.data?.id];
    if (created === undefined || created !== retried) problems.push(`${answers[i + 1].name}: not the payment created (${String(created)}, ${String(retried)})`);
  }
  if (problems.length) {
    process.stderr.write(`\nthe systems do not answer alike:\n  ${problems.join('\n  ')}\n${answers.map((a) => `--- ${a.name} (${a.status})\n${a.text}`).join('\n')}\n`);
    throw new AnswersDiffer('answers differ');
  }
  log(`  same answers: 201 then 200 with the same payment, ${keysOf(reference.json).length} keys in the same order (${reference.text.length} bytes)`);

  // The operator's intake: a promise and a queued call of a random debtor (no event for the call).
  const operatorHeaders = { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' };
  const someDebtor = () => debtorIds[Math.floor(Math.random() * debtorIds.length)];
  const promiseBody = (debtorId = someDebtor()) => JSON.stringify({ debtorId, amount: 40, promiseDate: '2026-12-15' });
  const callBody = (debtorId = someDebtor()) => JSON.stringify({ debtorId, direction: 'outbound', status: 'queued', fromNumber: '+34910000000', toNumber: '+34600000000' });
  for (const [what, body] of [['promises', promiseBody(debtorIds[0])], ['calls', callBody(debtorIds[0])]] as const) {
    const intake: typeof answers = [];
    for (const system of SYSTEMS) {
      const pool = system === 'project' ? operatorClient : bare;
      const res = await pool.request({ method: 'POST', path: `/operator/v1/portfolios/${portfolioId}/${what}`, headers: operatorHeaders, body });
      const text = await res.body.text();
      intake.push({ name: `${system} ${what}`, expect: 201, status: res.statusCode, text, json: parsed(text) });
    }
    const wrong = [...intake.filter((a) => a.status !== 201).map((a) => `${a.name}: status ${a.status}, expected 201`), ...unlike(intake)];
    if (wrong.length) {
      process.stderr.write(`\nthe systems do not answer alike:\n  ${wrong.join('\n  ')}\n${intake.map((a) => `--- ${a.name} (${a.status})\n${a.text}`).join('\n')}\n`);
      throw new AnswersDiffer('answers differ');
    }
    log(`  same answers: operator ${what} 201, ${keysOf(intake[0].json).length} keys in the same order (${intake[0].text.length} bytes)`);
  }

  // The payments to retry: registered once on each system, re-sent identically later.
  const retryBodies = {} as Record<SystemName, string[]>;
  for (const system of SYSTEMS) {
    retryBodies[system] = Array.from({ length: RETRIES }, (_, i) => paymentBody(`retry-${system}-${i}`));
    for (const body of retryBodies[system]) {
      const res = await call(clients[system], 'POST', PAYMENTS, body);
      if (res.status !== 201) throw new Error(`${system}: registering a payment to retry answered ${res.status} ${res.text}`);
    }
  }
  log(`registered ${RETRIES} payments on each system to retry`);

  const cpuNow = (system: SystemName): Record<string, number> => {
    const client = process.cpuUsage();
    return {
      ...Object.fromEntries(services[system].map((name) => [name, cpuSeconds(processes[name].pid)])),
      ...cpuSecondsByCommand(SHARED_SERVERS),
      'load client': (client.user + client.system) / 1e6,
    };
  };
  /** One closed-loop run at CONNECTIONS connections; any status but `expect` is an error. */
  const run = async (system: SystemName, target: Target, expect: number, durationMs = SECONDS * 1000): Promise<Run> => {
    const before = cpuNow(system);
    const r = await runLoad({ baseUrl: target.baseUrl, concurrency: CONNECTIONS, durationMs, request: (_w, pool) => timedPost(pool, target, expect) });
    alive();
    const after = cpuNow(system);
    const cpu = Object.fromEntries(Object.keys(after).map((name) => [name, ((after[name] - before[name]) / Math.max(1, r.requests + r.errors)) * 1000]));
    return { rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, cpu };
  };

  const rows: Record<string, string | number>[] = [];
  const cpuRows: Record<string, string | number>[] = [];
  /** Warm-up of each system, then ROUNDS × (project run, baseline run); a row of medians. */
  /** `cpuTarget`: the issue's CPU target is the payment's; the intakes' service ratio is printed without one. */
  const scenario = async (name: string, expect: number, targets: Record<SystemName, Target>, cpuTarget = true) => {
    for (const system of SYSTEMS) await run(system, targets[system], expect, WARM_UP_MS);
    const runs: Record<SystemName, Run[]> = { project: [], baseline: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Project first in even rounds, baseline first in odd ones: a drift of the VM's speed favours neither.
      for (const system of round % 2 ? ([...SYSTEMS].reverse() as SystemName[]) : SYSTEMS) runs[system].push(await run(system, targets[system], expect));
    }
    const m = (system: SystemName, key: 'rps' | 'p50' | 'p99') => median(runs[system].map((r) => r[key]));
    const rpsRatio = m('project', 'rps') / m('baseline', 'rps');
    const p99Ratio = m('project', 'p99') / m('baseline', 'p99');
    const errors = SYSTEMS.reduce((n, system) => n + runs[system].reduce((e, r) => e + r.errors, 0), 0);
    rows.push({
      scenario: name,
      'project req/s': m('project', 'rps'),
      'p50 ms': m('project', 'p50'),
      'p99 ms': m('project', 'p99'),
      'baseline req/s': m('baseline', 'rps'),
      'baseline p50 ms': m('baseline', 'p50'),
      'baseline p99 ms': m('baseline', 'p99'),
      'req/s ratio': num(rpsRatio, 2),
      'p99 ratio': num(p99Ratio, 2),
      errors,
      target: `≥ ${MIN_RPS}×, p99 ≤ ${MAX_P99}×`,
      result: errors ? 'FAIL (errors)' : rpsRatio >= MIN_RPS && p99Ratio <= MAX_P99 ? 'PASS' : 'FAIL',
    });
    const cpu = (system: SystemName, name: string) => median(runs[system].map((r) => r.cpu[name]));
    const serviceRatio = cpu('project', 'api-core') / cpu('baseline', 'bare-write-service');
    for (const system of SYSTEMS) {
      const [edge, service] = services[system];
      const names = Object.keys(runs[system][0].cpu);
      cpuRows.push({
        scenario: name,
        system,
        'gateway (edge)': num(cpu(system, edge), 3),
        service: num(cpu(system, service), 3),
        ...Object.fromEntries([...SHARED_SERVERS, 'load client'].map((n) => [n, num(cpu(system, n), 3)])),
        total: num(names.reduce((sum, n) => sum + cpu(system, n), 0), 3),
        'service ratio': system === 'project' ? num(serviceRatio, 2) : '',
        target: system === 'project' && cpuTarget ? `≤ ${MAX_SERVICE_CPU}×` : '',
        result: system === 'project' && cpuTarget ? (serviceRatio <= MAX_SERVICE_CPU ? 'PASS' : 'FAIL') : '',
      });
    }
    const paired = runs.project.map((r, i) => num(r.rps / runs.baseline[i].rps, 2));
    log(`  ${name}: project ${num(m('project', 'rps'), 0)} req/s (p99 ${num(m('project', 'p99'))} ms), baseline ${num(m('baseline', 'rps'), 0)} req/s (p99 ${num(m('baseline', 'p99'))} ms); rounds ${paired.join(' ')}`);
  };

  const payments = (system: SystemName, next: () => string): Target => ({ baseUrl: urls[system], path: PAYMENTS, headers, next });
  let sequence = 0;
  await scenario('new payment (unique externalId)', 201, {
    project: payments('project', () => paymentBody(`new-p-${sequence++}`)),
    baseline: payments('baseline', () => paymentBody(`new-b-${sequence++}`)),
  });
  const next = { project: 0, baseline: 0 };
  await scenario(`identical retry (${RETRIES} payments in turn)`, 200, {
    project: payments('project', () => retryBodies.project[next.project++ % RETRIES]),
    baseline: payments('baseline', () => retryBodies.baseline[next.baseline++ % RETRIES]),
  });
  const operator = (system: SystemName, what: 'promises' | 'calls', next: () => string): Target => ({
    baseUrl: system === 'project' ? stack.operatorUrl : bareUrl,
    path: `/operator/v1/portfolios/${portfolioId}/${what}`,
    headers: operatorHeaders,
    next,
  });
  await scenario('operator promise', 201, { project: operator('project', 'promises', promiseBody), baseline: operator('baseline', 'promises', promiseBody) }, false);
  await scenario('operator call (queued)', 201, { project: operator('project', 'calls', callBody), baseline: operator('baseline', 'calls', callBody) }, false);

  printTable(
    `Single writes against a same-statements bare baseline: ${DEBTORS} debtors, ${CONNECTIONS} connections, ` +
      `medians of ${ROUNDS} interleaved rounds of ${SECONDS} s (ratios: project / baseline)`,
    rows,
  );
  printTable(
    'CPU milliseconds per request, per process (medians of the same runs; service: api-core or bare-write-service, its ratio project / baseline; shared servers: all their processes)',
    cpuRows,
  );
}

async function main(): Promise<void> {
  const interrupted = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: cleaning up\n`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    await bench();
  } finally {
    await cleanUp();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof AnswersDiffer ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
