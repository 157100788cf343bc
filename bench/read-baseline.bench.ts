import type { AuthContext } from '@dc/contracts';
import { createTenant, dropDatabase, OperatorClient, prepareTemplateDatabase, PRODUCTION_LOGGING, ServiceProcess, Stack, withDatabase } from '@dc/testing';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { ulid } from 'ulid';
import { encodeCursor } from '../libs/contracts/src/pagination';
import { batchBody, postBatch } from './baseline/batch';
import { InspectorSession } from './baseline/cpu-profiler';
import { cpuSeconds, cpuSecondsByCommand, RssSampler, rssMiB } from './baseline/proc';
import { startBaseline } from './baseline/processes';
import { BaselineEnv } from './baseline/protocol';
import { baselineStatements } from './baseline/same-sql';
import { percentile, printTable, runLoad } from './load';
import { numberOption, option } from './options';

/**
 * The read API against a bare baseline of the same path, interleaved in one run
 * (bench/README.md):
 *   npm run bench:baseline [-- --debtors 20000 --seconds 5 --warm-up 5 --rounds 5 --connections 50 --soak 60 --profile DIR
 *                             --phases empty,point,fresh,events,compression,stale,batch,soak --project-env K=V,K=V --baseline-env K=V,K=V]
 * Project: gateway → NATS → api-core → Postgres, as processes (Stack), LOG_LEVEL=info.
 * Baseline: bare-gateway (Fastify → NATS) → bare-pg-service (api-core's SQL through `pg`, the
 * project's body assembly), byte-identical pages; `/me` answered by a static NATS reply.
 * Data is written through the public batch route; statistics go empty → fresh (ANALYZE) → stale.
 */
const DEBTORS = numberOption('debtors', 20_000);
const SECONDS = numberOption('seconds', 5);
const ROUNDS = Math.max(1, numberOption('rounds', 5));
const CONNECTIONS = Math.max(1, numberOption('connections', 50));
const SOAK_SECONDS = numberOption('soak', 60);
const PROFILE_DIR = option('profile');
/** The parts to run (all by default); a subset gives quick comparisons while working, not the figures bench/results records. */
const PHASES = ['empty', 'point', 'fresh', 'events', 'compression', 'stale', 'batch', 'soak'] as const;
const chosen = (option('phases') ?? PHASES.join(',')).split(',');
for (const name of chosen) if (!(PHASES as readonly string[]).includes(name)) throw new Error(`--phases: unknown phase "${name}" (known: ${PHASES.join(', ')})`);
const runs = (phase: (typeof PHASES)[number]) => chosen.includes(phase);
const envOption = (name: string): Record<string, string> =>
  Object.fromEntries(
    (option(name) ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
/** Settings of the project's processes for an experiment (LOG_LEVEL=warn, NODE_OPTIONS=--max-old-space-size=128, …). */
const PROJECT_ENV = envOption('project-env');
/** The same for the baseline's two processes (NODE_OPTIONS=--perf-basic-prof to profile both sides alike). */
const BASELINE_ENV = envOption('baseline-env');
const BATCH = 500;
const LIMIT = 50;
/** Events in the first portfolio for the events feed's page (phase `events`), relayed. */
const EVENTS = 20_000;
/**
 * Load on each system before a scenario's measured rounds (a run's length unless --warm-up says
 * otherwise): the project runs several times the bare path's JavaScript per request, which V8
 * needs a few thousand requests to optimise, and a service runs warm in production.
 */
const WARM_UP_MS = numberOption('warm-up', SECONDS) * 1000;
/** api-core's default pool (libs/config, DATABASE_POOL_SIZE); Stack's own default is 4. */
const POOL_SIZE = 10;
/** The issue's targets. */
const PAGE_MIN_RPS = 0.9;
const PAGE_MAX_P99 = 1.5;
const POINT_MIN_RPS = 0.7;
const BATCH_MAX_MS = 200;
const RSS_MAX_MIB = 250;

const PROJECT = 'project';
const BASELINE = 'baseline';
type SystemName = typeof PROJECT | typeof BASELINE;

interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** Mean bytes of a response body as sent (compressed or not). */
  bytes: number;
  /** The content-encodings answered ('identity' when none). */
  encoding: string;
  /** CPU milliseconds per request of each process involved (the system's services, the shared servers, the load client). */
  cpu: Record<string, number>;
}

/** The servers both systems share; their CPU per request is part of each system's cost. */
const SHARED_SERVERS = ['postgres', 'nats-server', 'redis-server'] as const;

const median = (xs: number[]) => (xs.length ? percentile(xs, 50) : Number.NaN);
const mib = (n: number) => (Number.isNaN(n) ? '—' : n.toFixed(0));
const num = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Thrown when the baseline's bytes are not the project's: the comparison would mean nothing. */
class BytesDiffer extends Error {}

/** Undone in reverse order, on success, failure or Ctrl-C. */
class Cleanup {
  private readonly steps: (() => Promise<unknown>)[] = [];
  private done: Promise<void> | undefined;

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  run(): Promise<void> {
    this.done ??= (async () => {
      for (const step of this.steps.reverse()) await step().catch((err: unknown) => process.stderr.write(`cleanup: ${String(err)}\n`));
    })();
    return this.done;
  }
}

/** One GET over the load pool: status 200 and the body read to the end (its bytes counted, never parsed). */
async function timedGet(pool: Pool, path: string, headers: Record<string, string>): Promise<{ ok: boolean; ms: number; bytes: number; encoding?: string }> {
  const started = performance.now();
  try {
    const res = await pool.request({ method: 'GET', path, headers });
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    const encoding = res.headers['content-encoding'];
    return { ok: res.statusCode === 200, ms: performance.now() - started, bytes, encoding: typeof encoding === 'string' ? encoding : undefined };
  } catch {
    return { ok: false, ms: performance.now() - started, bytes: 0 };
  }
}

async function fetchBytes(baseUrl: string, path: string, headers: Record<string, string>): Promise<{ status: number; type: string; body: Buffer }> {
  const pool = new Pool(baseUrl, { connections: 1 });
  try {
    const res = await pool.request({ method: 'GET', path, headers });
    const body = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, type: String(res.headers['content-type']), body };
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  const interrupted = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: cleaning up\n`);
    void cleanup.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    await bench(cleanup);
  } finally {
    await cleanup.run();
  }
}

async function bench(cleanup: Cleanup): Promise<void> {
  if (ROUNDS < 5) log(`note: --rounds ${ROUNDS}: recorded figures need at least 5 interleaved rounds`);
  const runSeconds = 9 * (ROUNDS * 2 * SECONDS + (2 * WARM_UP_MS) / 1000) + 3 * (ROUNDS * SECONDS + WARM_UP_MS / 1000) + SOAK_SECONDS + (PROFILE_DIR ? 3 * SECONDS : 0);
  const minutes = runSeconds / 60;
  log(`${DEBTORS} debtors per portfolio, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s; measuring takes about ${minutes.toFixed(0)} min`);

  const template = await prepareTemplateDatabase();
  cleanup.add(() => dropDatabase(template));
  const work = await mkdtemp(path.join(tmpdir(), 'dc-bench-baseline-'));
  cleanup.add(() => rm(work, { recursive: true, force: true }));
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });

  const stack = await Stack.start({
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      ...PRODUCTION_LOGGING,
      ...PROJECT_ENV,
      // A profile per scenario, over the inspector (bench/baseline/cpu-profiler.ts).
      ...(PROFILE_DIR ? { NODE_OPTIONS: '--inspect=127.0.0.1:0' } : {}),
    },
  });
  cleanup.add(() => stack.stop());
  stack.discardLogs();
  const gateway = stack.gateways[0].process;
  const core = stack.apiCores[0];

  const operator = new OperatorClient(stack.operatorUrl);
  const tenant = await createTenant(operator);
  const organizationId = tenant.organizationId;
  const auth = { authorization: `Bearer ${tenant.key}` };
  const me = await fetchBytes(stack.publicUrl, '/public/v1/me', auth);
  if (me.status !== 200) throw new Error(`GET /me: ${me.status} ${me.body.toString()}`);
  const authContext: AuthContext = { organizationId, apiKeyId: (JSON.parse(me.body.toString()) as { data: { apiKey: { id: string } } }).data.apiKey.id, portfolioIds: [] };

  const writer = new Pool(stack.publicUrl, { connections: 1 });
  cleanup.add(() => writer.close());
  /** `DEBTORS` debtors with 2 debts and 2 phones each, 500 per request through the public route. */
  const load = async (portfolioId: string, prefix: string): Promise<string[]> => {
    const started = performance.now();
    const ids: string[] = [];
    for (let at = 0; at < DEBTORS; at += BATCH) {
      ids.push(...(await postBatch(writer, tenant.key, portfolioId, batchBody(`${prefix}${at / BATCH}`, Math.min(BATCH, DEBTORS - at)))).ids);
    }
    const s = (performance.now() - started) / 1000;
    log(`loaded ${DEBTORS} debtors (${DEBTORS * 2} debts, ${DEBTORS * 2} phones) into ${portfolioId} through the batch route in ${s.toFixed(1)} s`);
    return ids.sort();
  };
  const newPortfolio = async (name: string): Promise<string> =>
    (await operator.expect<{ data: { id: string } }>(201, 'POST', `/organizations/${organizationId}/portfolios`, { identityName: name, identityCurrency: ['EUR'] })).data.id;
  /** What the planner knows of debtors against what is there (a stale state: rows and portfolios it has not seen). */
  const statistics = async (label: string) => {
    const [row] = await withDatabase(stack.databaseUrl, async (db) =>
      (await db.query<{ reltuples: number; analysed: boolean; rows: number; portfolios: number; known: number | null }>(
        `SELECT c.reltuples::float8 AS reltuples, s.last_analyze IS NOT NULL OR s.last_autoanalyze IS NOT NULL AS analysed,
           (SELECT count(*) FROM debtors)::int AS rows, (SELECT count(DISTINCT portfolio_id) FROM debtors)::int AS portfolios,
           (SELECT array_length(most_common_vals::text::text[], 1) FROM pg_stats
             WHERE schemaname = current_schema() AND tablename = 'debtors' AND attname = 'portfolio_id') AS known
         FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'debtors'`,
      )).rows,
    );
    const known = row.analysed ? `analysed: reltuples ${row.reltuples}, portfolio_id statistics name ${row.known ?? 0} portfolio(s)` : `never analysed (reltuples ${row.reltuples})`;
    log(`statistics ${label}: debtors holds ${row.rows} rows in ${row.portfolios} portfolio(s); ${known}`);
  };

  const firstPortfolio = tenant.portfolioIds[0];
  const firstIds = await load(firstPortfolio, 'a');

  // The baseline, as processes of its own.
  const statementsFile = path.join(work, 'statements.json');
  writeFileSync(statementsFile, JSON.stringify(baselineStatements(authContext, me.body.toString('utf8'))));
  const baselineEnv = {
    [BaselineEnv.statements]: statementsFile,
    // Profiled like the project's, so the two can be read side by side.
    ...(PROFILE_DIR ? { NODE_OPTIONS: '--inspect=127.0.0.1:0' } : {}),
    ...BASELINE_ENV,
  };
  const { service: bareService, gateway: bareGateway, url: bareUrl } = await startBaseline('bare-pg-service', stack, POOL_SIZE, baselineEnv, (stop) => cleanup.add(stop));

  const processes: Record<string, ServiceProcess> = { gateway, 'api-core': core, 'bare-gateway': bareGateway, 'bare-pg-service': bareService };
  const pids = Object.fromEntries(Object.entries(processes).map(([name, p]) => [name, p.pid]));
  // Highest RSS per service: under the page load (the target: first and deep pages, the
  // compression runs, the soak) and in any run (by-id and /me run at several times the page rate).
  const rssPeak = { pages: new Map<string, { mib: number; scenario: string }>(), any: new Map<string, { mib: number; scenario: string }>() };
  const isPageLoad = (scenario: string) => scenario.includes('page') || scenario === 'soak';
  const alive = () => {
    const dead = Object.entries(processes).filter(([, p]) => !p.running);
    if (dead.length) throw new Error(`exited during the bench: ${dead.map(([name, p]) => `${name} (${p.exitDescription}) ${p.errorOutput.slice(-2000)}`).join('; ')}`);
  };
  const systems: Record<SystemName, string> = { [PROJECT]: stack.publicUrl, [BASELINE]: bareUrl };

  /** One closed-loop run at CONNECTIONS connections, with the RSS of every service sampled (unless profiled: the profiler's memory is not the service's). */
  const services: Record<SystemName, string[]> = { [PROJECT]: ['gateway', 'api-core'], [BASELINE]: ['bare-gateway', 'bare-pg-service'] };
  const cpuNow = (system: SystemName): Record<string, number> => ({
    ...Object.fromEntries(services[system].map((name) => [name, cpuSeconds(pids[name])])),
    ...cpuSecondsByCommand(SHARED_SERVERS),
    'load client': process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
  });
  const run = async (scenario: string, system: SystemName, nextPath: () => string, headers: Record<string, string>, durationMs = SECONDS * 1000, profiled = false): Promise<Run> => {
    const cpuBefore = cpuNow(system);
    const sampler = new RssSampler(pids).start();
    let bytes = 0;
    const encodings = new Set<string>();
    const r = await runLoad({
      baseUrl: systems[system],
      concurrency: CONNECTIONS,
      durationMs,
      request: async (_w, pool) => {
        const res = await timedGet(pool, nextPath(), headers);
        bytes += res.bytes;
        encodings.add(res.encoding ?? 'identity');
        return res;
      },
    });
    for (const [name, peak] of sampler.stop()) {
      if (profiled) continue;
      for (const peaks of isPageLoad(scenario) ? [rssPeak.pages, rssPeak.any] : [rssPeak.any]) {
        if (peak > (peaks.get(name)?.mib ?? 0)) peaks.set(name, { mib: peak, scenario });
      }
    }
    alive();
    const cpuAfter = cpuNow(system);
    const cpu = Object.fromEntries(Object.keys(cpuAfter).map((name) => [name, ((cpuAfter[name] - cpuBefore[name]) / Math.max(1, r.requests + r.errors)) * 1000]));
    return { rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, requests: r.requests, bytes: r.requests ? bytes / (r.requests + r.errors) : 0, encoding: [...encodings].join(', '), cpu };
  };

  const rows: Record<string, string | number>[] = [];
  /** Per scenario and system: median CPU ms per request of each process. */
  const cpuRows: Record<string, string | number>[] = [];
  /** Warm-up of each system, then ROUNDS × (project run, baseline run); a row of medians. */
  /** The project's debtor first page of this run (fresh statistics): the events page's target (issue 37). */
  let debtorFirstPage: { rps: number; p99: number } | undefined;
  /**
   * `page` and `point`: against the bare twin (the read API's targets). `events`: the project's events
   * page at the cost of its debtor first page or less — at least its req/s, at most its p99.
   */
  const scenario = async (name: string, kind: 'page' | 'point' | 'events', paths: Record<SystemName, () => string>, profileAs?: string) => {
    for (const system of [PROJECT, BASELINE] as const) await run(name, system, paths[system], auth, WARM_UP_MS);
    const runs: Record<SystemName, Run[]> = { [PROJECT]: [], [BASELINE]: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Project first in even rounds, baseline first in odd ones: neither always runs right after
      // the other's load, and a drift of the VM's speed within a round favours neither.
      for (const system of round % 2 ? ([BASELINE, PROJECT] as const) : ([PROJECT, BASELINE] as const)) runs[system].push(await run(name, system, paths[system], auth));
    }
    const m = (system: SystemName, key: 'rps' | 'p50' | 'p99') => median(runs[system].map((r) => r[key]));
    const rpsRatio = m(PROJECT, 'rps') / m(BASELINE, 'rps');
    // Each round's project run against the baseline run beside it: this VM's speed drifts over
    // minutes, which the pairs cancel and the ratio of medians does not; their spread shows the noise.
    const paired = runs[PROJECT].map((r, i) => r.rps / runs[BASELINE][i].rps);
    const p99Ratio = m(PROJECT, 'p99') / m(BASELINE, 'p99');
    const errors = runs[PROJECT].reduce((n, r) => n + r.errors, 0) + runs[BASELINE].reduce((n, r) => n + r.errors, 0);
    const reference = debtorFirstPage;
    const pass =
      kind === 'events'
        ? reference !== undefined && m(PROJECT, 'rps') >= reference.rps && m(PROJECT, 'p99') <= reference.p99
        : kind === 'page' ? rpsRatio >= PAGE_MIN_RPS && p99Ratio <= PAGE_MAX_P99 : rpsRatio >= POINT_MIN_RPS;
    if (name.startsWith('first page, fresh')) debtorFirstPage = { rps: m(PROJECT, 'rps'), p99: m(PROJECT, 'p99') };
    rows.push({
      scenario: name,
      'project req/s': m(PROJECT, 'rps'),
      'p50 ms': m(PROJECT, 'p50'),
      'p99 ms': m(PROJECT, 'p99'),
      'baseline req/s': m(BASELINE, 'rps'),
      'baseline p50 ms': m(BASELINE, 'p50'),
      'baseline p99 ms': m(BASELINE, 'p99'),
      'req/s ratio': num(rpsRatio, 2),
      'paired ratio (min–max)': `${num(median(paired), 2)} (${num(Math.min(...paired), 2)}–${num(Math.max(...paired), 2)})`,
      'p99 ratio': num(p99Ratio, 2),
      errors,
      target:
        kind === 'events' ? 'project ≥ debtor first page req/s, p99 ≤ its' : kind === 'page' ? `≥ ${PAGE_MIN_RPS}×, p99 ≤ ${PAGE_MAX_P99}×` : `≥ ${POINT_MIN_RPS}×`,
      result: errors ? 'FAIL (errors)' : kind === 'events' && !reference ? '— (run phase fresh too)' : pass ? 'PASS' : 'FAIL',
    });
    for (const system of [PROJECT, BASELINE] as const) {
      const names = Object.keys(runs[system][0].cpu);
      const per = Object.fromEntries(names.map((n) => [n, median(runs[system].map((r) => r.cpu[n]))]));
      cpuRows.push({ scenario: name, system, ...Object.fromEntries(names.map((n) => [n, num(per[n], 3)])), total: num(Object.values(per).reduce((a, b) => a + b, 0), 3) });
    }
    log(`  ${name}: project ${num(m(PROJECT, 'rps'), 0)} req/s (p99 ${num(m(PROJECT, 'p99'))} ms), baseline ${num(m(BASELINE, 'rps'), 0)} req/s (p99 ${num(m(BASELINE, 'p99'))} ms); rounds ${paired.map((r) => num(r, 2)).join(' ')}`);
    if (PROFILE_DIR && profileAs) await profileRun(name, paths, profileAs);
  };

  /** One more project run of the scenario (not counted) with the gateway and api-core profiled. */
  let inspectors: Record<SystemName, Record<string, InspectorSession>> | undefined;
  const profileRun = async (name: string, paths: Record<SystemName, () => string>, label: string) => {
    if (!inspectors) {
      const attach = async (names: string[]) => Object.fromEntries(await Promise.all(names.map(async (n) => [n, await InspectorSession.attach(processes[n].errorOutput)] as const)));
      inspectors = { [PROJECT]: await attach(services[PROJECT]), [BASELINE]: await attach(services[BASELINE]) };
      cleanup.add(async () => Object.values(inspectors ?? {}).forEach((sessions) => Object.values(sessions).forEach((s) => s.close())));
    }
    for (const system of [PROJECT, BASELINE] as const) {
      const sessions = inspectors[system];
      await Promise.all(Object.values(sessions).map((s) => s.start()));
      await run(`${name} (profiled)`, system, paths[system], auth, SECONDS * 1000, true);
      for (const [service, session] of Object.entries(sessions)) log(`  CPU profile: ${await session.stopInto(path.join(PROFILE_DIR!, `${service}.${label}.cpuprofile`))}`);
    }
  };

  /** The bytes of both systems for the same request must be the same, or the comparison means nothing. */
  const sameBytes = async (label: string, requestPath: string) => {
    const [project, baseline] = await Promise.all([fetchBytes(stack.publicUrl, requestPath, auth), fetchBytes(bareUrl, requestPath, auth)]);
    if (project.status === 200 && baseline.status === 200 && project.body.equals(baseline.body)) {
      if (project.type !== baseline.type) log(`  note: content-type differs on ${label}: project "${project.type}", baseline "${baseline.type}"`);
      log(`  same bytes: ${label} (${project.body.length} bytes)`);
      return project.body.length;
    }
    const at = [...project.body].findIndex((b, i) => b !== baseline.body[i]);
    process.stderr.write(
      `\n${label}: the baseline's body is not the project's (GET ${requestPath}; status ${project.status} / ${baseline.status}, ` +
        `${project.body.length} / ${baseline.body.length} bytes, first difference at byte ${at < 0 ? Math.min(project.body.length, baseline.body.length) : at})\n` +
        `--- project\n${project.body.toString('utf8')}\n--- baseline\n${baseline.body.toString('utf8')}\n`,
    );
    throw new BytesDiffer(`${label}: bodies differ`);
  };

  const page = (portfolio?: string, cursor?: string) =>
    `/public/v1/debtors?limit=${LIMIT}${cursor ? `&cursor=${cursor}` : ''}${portfolio ? `&portfolioId=${portfolio}` : ''}`;
  const deepCursor = (ids: string[]) => encodeCursor(ids[Math.floor(ids.length * 0.75)]);
  const both = (p: () => string): Record<SystemName, () => string> => ({ [PROJECT]: p, [BASELINE]: p });
  const pagePhase = async (state: string, portfolio: string | undefined, ids: string[]) => {
    const first = page(portfolio);
    const deep = page(portfolio, deepCursor(ids));
    const where = portfolio ? `, ?portfolioId=<${portfolio === firstPortfolio ? 'first' : 'second'}>` : '';
    await sameBytes(`first page, ${state}`, first);
    await sameBytes(`deep page, ${state}`, deep);
    await scenario(`first page, ${state} stats${where}`, 'page', both(() => first), `first-page.${state}`);
    await scenario(`deep page (¾), ${state} stats${where}`, 'page', both(() => deep));
  };

  // 1. Empty statistics: the state right after the load (never analysed).
  await statistics('after the load');
  if (runs('empty')) await pagePhase('empty', undefined, firstIds);
  if (runs('point')) {
    const randomId = () => firstIds[Math.floor(Math.random() * firstIds.length)];
    await sameBytes('by id', `/public/v1/debtors/${firstIds[0]}`);
    await scenario('GET /debtors/{id} (random)', 'point', both(() => `/public/v1/debtors/${randomId()}`), 'by-id');
    await scenario('GET /me (baseline: static NATS reply)', 'point', both(() => '/public/v1/me'));
  }

  // 2. Fresh statistics.
  await withDatabase(stack.databaseUrl, (db) => db.query('ANALYZE'));
  await statistics('after ANALYZE');
  if (runs('fresh')) await pagePhase('fresh', undefined, firstIds);

  // The events feed's first page (issue 37), beside the debtors' first page of the same run: payment
  // events of the first portfolio's debtors, in the shape api-core writes them and relayed (feed
  // positions given; no dispatcher runs here), after the ANALYZE (the planner has never seen them).
  if (runs('events')) {
    const ids = Array.from({ length: EVENTS }, () => `evt_${ulid()}`);
    await withDatabase(stack.databaseUrl, async (db) => {
      for (let k = 0; k < 10; k++) {
        const slice = ids.slice((k * EVENTS) / 10, ((k + 1) * EVENTS) / 10);
        await db.query(
          `INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, relayed_at, feed_position, payload)
           SELECT e.id, $2, $3, 'payment.registered', true, now(), nextval('outbox_events_feed_position_seq'), json_build_object('id', 'pay_' || split_part(e.id, '_', 2), 'externalId', 'ext-' || e.n,
             'portfolioId', $3::text, 'debtorId', ($4::text[])[1 + (e.n % cardinality($4::text[]))::int], 'debtId', null, 'promiseId', null, 'amount', 25.5,
             'currency', 'EUR', 'paymentDate', '2026-11-01', 'paymentMethod', 'card', 'reference', null, 'createdAt', now(), 'updatedAt', now())
           FROM unnest($1::text[]) WITH ORDINALITY AS e(id, n) ORDER BY e.n`,
          [slice, organizationId, firstPortfolio, firstIds],
        );
      }
    });
    log(`wrote ${EVENTS} relayed events into ${firstPortfolio}`);
    const events = `/public/v1/events?limit=${LIMIT}`;
    await sameBytes('events first page', events);
    await scenario(`GET /events first page (${EVENTS} events)`, 'events', both(() => events), 'events');
  }

  // Compression (project only), with fresh statistics: identity, gzip, br interleaved.
  const encodings = ['identity', 'gzip', 'br'] as const;
  const compression = new Map<string, { runs: Run[]; cpu: number[] }>(encodings.map((e) => [e, { runs: [], cpu: [] }]));
  for (let round = -1; runs('compression') && round < ROUNDS; round++) {
    for (const encoding of encodings) {
      const headers = encoding === 'identity' ? auth : { ...auth, 'accept-encoding': encoding };
      const entry = compression.get(encoding)!;
      const before = cpuSeconds(gateway.pid);
      const r = await run(`first page, ${encoding}`, PROJECT, () => page(), headers, round < 0 ? WARM_UP_MS : SECONDS * 1000);
      if (round < 0) continue; // warm-up
      entry.runs.push(r);
      entry.cpu.push(((cpuSeconds(gateway.pid) - before) / (r.requests + r.errors)) * 1000);
    }
  }

  // 3. Stale statistics: a second portfolio of the same size loaded after the ANALYZE, read by portfolioId.
  if (runs('stale')) {
    const secondPortfolio = await newPortfolio('Portfolio 2');
    const secondIds = await load(secondPortfolio, 'b');
    await statistics('after the second load');
    await pagePhase('stale', secondPortfolio, secondIds);
  }

  // Batch latency (project only), in a portfolio of its own.
  if (runs('batch')) {
    const batchPortfolio = await newPortfolio('Portfolio 3');
    for (const warm of ['w0', 'w1']) await postBatch(writer, tenant.key, batchPortfolio, batchBody(warm, BATCH));
    const batches = Array.from({ length: Math.max(5, ROUNDS) }, (_, i) => batchBody(`n${i}`, BATCH));
    for (const [name, expect] of [[`batch ${BATCH} × 2 debts × 2 phones, new`, 'created'], [`the same ${BATCH} resent (all updates)`, 'updated']] as const) {
      const times: number[] = [];
      for (const body of batches) {
        const r = await postBatch(writer, tenant.key, batchPortfolio, body);
        if (r[expect] !== BATCH) throw new Error(`${name}: expected ${BATCH} ${expect}, got ${r.created} created / ${r.updated} updated`);
        times.push(r.ms);
      }
      const p50 = median(times);
      rows.push({
        scenario: `${name} (${times.length} requests, client wall time)`,
        'project req/s': '—',
        'p50 ms': p50,
        'p99 ms': percentile(times, 99),
        ...Object.fromEntries(['baseline req/s', 'baseline p50 ms', 'baseline p99 ms', 'req/s ratio', 'paired ratio (min–max)', 'p99 ratio'].map((c) => [c, '—'])),
        errors: 0,
        target: `median ≤ ${BATCH_MAX_MS} ms`,
        result: p50 <= BATCH_MAX_MS ? 'PASS' : 'FAIL',
      });
    }
  }

  // Soak: first pages on the project, RSS of gateway and api-core along the way.
  const soak: { s: number; gateway: number; core: number }[] = [];
  let soakRps = Number.NaN;
  if (SOAK_SECONDS > 0 && runs('soak')) {
    const started = performance.now();
    const sample = () => soak.push({ s: (performance.now() - started) / 1000, gateway: rssMiB(gateway.pid), core: rssMiB(core.pid) });
    sample();
    const timer = setInterval(sample, 1000);
    soakRps = (await run('soak', PROJECT, () => page(firstPortfolio), auth, SOAK_SECONDS * 1000)).rps;
    clearInterval(timer);
    sample();
  }

  // The tables.
  printTable(
    `Read API against a same-bytes bare baseline: ${DEBTORS} debtors per portfolio (2 debts, 2 phones each, written through the batch route), ` +
      `${CONNECTIONS} connections, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s (ratios: project / baseline)`,
    rows,
  );
  if (cpuRows.length) printTable(
    'CPU milliseconds per request, per process (medians of the same runs; shared servers: all their processes, whichever system loads them)',
    cpuRows.map((row) => {
      const [gatewayName, serviceName] = services[row.system as SystemName];
      const { scenario: name, system, total, ...cpu } = row;
      return { scenario: name, system, 'gateway (edge)': cpu[gatewayName], 'service': cpu[serviceName], ...Object.fromEntries(SHARED_SERVERS.map((n) => [n, cpu[n]])), 'load client': cpu['load client'], total };
    }),
  );
  printTable(
    `RSS per service, highest sample (every 500 ms) under the page load (the target) and in any measured run${PROFILE_DIR ? ' (with --profile: includes what the inspector keeps; measure memory without it)' : ''}`,
    Object.keys(processes).map((name) => {
      const pages = rssPeak.pages.get(name);
      const any = rssPeak.any.get(name);
      const project = name === 'gateway' || name === 'api-core';
      return {
        service: name,
        'page load MiB': mib(pages?.mib ?? Number.NaN),
        during: pages?.scenario ?? '—',
        target: project ? `< ${RSS_MAX_MIB} MiB` : '—',
        result: project && pages ? (pages.mib < RSS_MAX_MIB ? 'PASS' : 'FAIL') : '—',
        'any run MiB': mib(any?.mib ?? Number.NaN),
        'any run during': any?.scenario ?? '—',
      };
    }),
  );
  const identity = compression.get('identity')!;
  if (runs('compression')) printTable(
    `Compression (project only): first page with fresh statistics, ${CONNECTIONS} connections, medians of ${ROUNDS} interleaved rounds`,
    encodings.map((encoding) => {
      const c = compression.get(encoding)!;
      const bytes = median(c.runs.map((r) => r.bytes));
      const cpu = median(c.cpu);
      return {
        'accept-encoding': encoding === 'identity' ? '(none)' : encoding,
        'content-encoding': [...new Set(c.runs.map((r) => r.encoding))].join(', '),
        'req/s': median(c.runs.map((r) => r.rps)),
        'p50 ms': median(c.runs.map((r) => r.p50)),
        'p99 ms': median(c.runs.map((r) => r.p99)),
        'bytes/response': Math.round(bytes),
        'vs identity': `${num((bytes / median(identity.runs.map((r) => r.bytes))) * 100, 1)} %`,
        'gateway CPU s / 1,000 req': num(cpu, 3),
        'CPU vs identity': `${num(cpu / median(identity.cpu), 2)}×`,
        errors: c.runs.reduce((n, r) => n + r.errors, 0),
      };
    }),
  );
  if (soak.length) {
    // RSS samples every second, shown as each quarter's highest: a collected heap is a sawtooth, and
    // single samples land anywhere on it. Flat: under the target, and the last quarter's peak at
    // most 5 % above the second quarter's (once the heap has settled).
    const quarters = [0, 1, 2, 3].map((q) => soak.filter((x) => x.s >= (q * SOAK_SECONDS) / 4 && (q === 3 || x.s < ((q + 1) * SOAK_SECONDS) / 4)));
    const peak = (xs: typeof soak, of: 'gateway' | 'core') => (xs.length ? Math.max(...xs.map((x) => x[of])) : Number.NaN); // NaN: a soak too short for four quarters
    const verdict = (of: 'gateway' | 'core') => {
      const from = peak(quarters[1], of);
      const growth = peak(quarters[3], of) - from;
      const ok = peak(soak, of) < RSS_MAX_MIB && growth <= from * 0.05;
      return `${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MiB, max ${peak(soak, of).toFixed(0)} (${ok ? 'PASS' : 'FAIL'})`;
    };
    printTable(`Soak: ${SOAK_SECONDS} s of first pages (portfolio 1) on the project at ${CONNECTIONS} connections, ${num(soakRps, 0)} req/s; highest RSS per quarter, sampled every second (target: < ${RSS_MAX_MIB} MiB each, flat)`, [
      ...quarters.map((xs, q) => ({ s: `${(q * SOAK_SECONDS) / 4}–${((q + 1) * SOAK_SECONDS) / 4}`, 'gateway MiB': mib(peak(xs, 'gateway')), 'api-core MiB': mib(peak(xs, 'core')) })),
      { s: 'last ¼ vs second ¼', 'gateway MiB': verdict('gateway'), 'api-core MiB': verdict('core') },
    ]);
  }
}

main().catch((err: unknown) => {
  if (!(err instanceof BytesDiffer)) process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  else process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
