/**
 * Webhook delivery: events written through the public API → signed deliveries to a local receiver
 * that verifies every signature. Prints deliveries/s per dispatcher process (one and two processes,
 * and with one receiver that never answers) with each drain's CPU per delivery by process, the
 * machine's ceiling in the same run (bare undici sending the same signed body), and event →
 * first-attempt latency.
 * Run: npm run bench:webhooks [-- --events 2500 --webhooks 4 --warm-up-events 500 --profile DIR]   (see bench/README.md)
 */
import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { createTenant, OPERATOR_TOKEN, OperatorClient, prepareTemplateDatabase, PRODUCTION_LOGGING, ServiceProcess, Stack, Tenant } from '@dc/testing';
import { BareSenderEnv } from './baseline/bare-webhook-sender';
import { cpuSeconds, cpuSecondsByCommand } from './baseline/proc';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const EVENTS = arg('events', 2500);
const WEBHOOKS = arg('webhooks', 4);
const WRITERS = 16;
const WARM_UP_EVENTS = arg('warm-up-events', 500);
/** `--profile DIR`: every service (and each dispatcher run) writes a V8 CPU profile there. */
const PROFILE_DIR = process.argv.includes('--profile') ? process.argv[process.argv.indexOf('--profile') + 1] : undefined;

interface Arrival {
  path: string;
  id: string;
  createdAt: number;
  at: number;
}

/**
 * Answers 204 after checking X-Service-Signature over the raw bytes; `/never` never answers; `/extra`
 * (the fifth webhook) and `/bare` (the bare sender) are prompt receivers whose requests are verified
 * but not counted.
 */
class VerifyingReceiver {
  readonly secrets = new Map<string, Buffer>();
  readonly arrivals: Arrival[] = [];
  readonly seen = new Set<string>();
  badSignatures = 0;
  /** The `data` of the last delivery counted, as sent: the bare sender sends the same. */
  lastData = '';
  private server?: Server;
  private waiters: { count: number; resolve: () => void }[] = [];

  async listen(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${String((this.server.address() as AddressInfo).port)}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      if (path === '/never') return; // the dispatcher's 10 s timeout ends it
      const body = Buffer.concat(chunks);
      const [t, v1] = String(req.headers['x-service-signature']).split(',').map((p) => p.slice(p.indexOf('=') + 1));
      const expected = createHmac('sha256', this.secrets.get(path)!).update(`${t}.`).update(body).digest();
      const given = Buffer.from(v1 ?? '', 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        this.badSignatures += 1;
        res.writeHead(400).end();
        return;
      }
      const event = JSON.parse(body.toString('utf8')) as { id: string; createdAt: string; data: unknown };
      if (path !== '/extra' && path !== '/bare' && !this.seen.has(event.id)) {
        this.seen.add(event.id);
        this.lastData = JSON.stringify(event.data);
        this.arrivals.push({ path, id: event.id, createdAt: Date.parse(event.createdAt), at: Date.now() });
        this.waiters = this.waiters.filter((w) => (this.seen.size >= w.count ? (w.resolve(), false) : true));
      }
      res.writeHead(204).end();
    });
  }

  until(count: number): Promise<void> {
    return this.seen.size >= count ? Promise.resolve() : new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function main(): Promise<void> {
  await prepareTemplateDatabase();
  const receiver = new VerifyingReceiver();
  const receiverUrl = await receiver.listen();
  const stack = await Stack.start({
    env: {
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      DATABASE_POOL_SIZE: '8',
      ...PRODUCTION_LOGGING,
    },
    cpuProfileDir: PROFILE_DIR,
  });
  const rows: string[][] = [];
  try {
    stack.discardLogs();
    const operator = new OperatorClient(stack.operatorUrl);
    const tenant = await createTenant(operator, { name: 'Bench webhooks' });
    const debtorId = await createDebtor(stack, tenant);
    for (let w = 0; w < WEBHOOKS; w += 1) {
      const created = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, { url: `${receiverUrl}/w${w}` });
      receiver.secrets.set(`/w${w}`, Buffer.from(created.data.secret as string, 'utf8'));
    }
    let written = 0;
    const writeEvents = async (count: number, perSecond?: number) => {
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          while (next < count) {
            const i = next++;
            if (perSecond) {
              const due = started + (i / perSecond) * 1000;
              const wait = due - performance.now();
              if (wait > 0) await new Promise((r) => setTimeout(r, wait));
            }
            await payment(stack, tenant, debtorId, `bench-${written + i}`);
          }
        }),
      );
      written += count;
    };

    // 0. A warm-up drain, reported apart: Postgres's buffers, Redis and the receiver warm up as a
    //    long-running deployment's are (the first drain after a start runs up to ~40 % slower).
    await writeEvents(WARM_UP_EVENTS);
    rows.push(backlogRow('warm-up (not a measurement), 1 dispatcher', await drain(stack, 1, receiver.seen.size + WARM_UP_EVENTS * WEBHOOKS, receiver), 1));

    // 1. A backlog drained by one dispatcher, then by two.
    for (const processes of [1, 2]) {
      await writeEvents(EVENTS);
      const expected = receiver.seen.size + EVENTS * WEBHOOKS;
      const run = await drain(stack, processes, expected, receiver);
      rows.push(backlogRow(`backlog, ${processes} dispatcher${processes > 1 ? 's' : ''}`, run, processes));
    }

    // 2. A fifth webhook, first prompt, then answering never (each attempt waits 10 s): the other
    //    four receivers' deliveries/s should not drop.
    const extra = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, { url: `${receiverUrl}/extra` });
    receiver.secrets.set('/extra', Buffer.from(extra.data.secret as string, 'utf8'));
    for (const [name, path] of [['backlog + a fifth, prompt receiver', '/extra'], ['backlog + a fifth receiver that never answers', '/never']]) {
      await operator.expect(200, 'PATCH', `/webhooks/${extra.data.id as string}`, { url: `${receiverUrl}${path}` });
      await writeEvents(EVENTS);
      rows.push(backlogRow(`${name} (the other four)`, await drain(stack, 1, receiver.seen.size + EVENTS * WEBHOOKS, receiver), 1));
    }
    await operator.expect(200, 'PATCH', `/webhooks/${extra.data.id as string}`, { enabled: false });

    // 3. What this machine sends in this run with bare undici: the ceiling the figures above sit under.
    rows.push(await bareRow(receiverUrl, receiver));

    // 4. Steady state: events at a fixed rate with a dispatcher running; event → first attempt.
    const dispatcher = await startDispatcher(stack);
    const rate = 100;
    const before = receiver.arrivals.length;
    const target = receiver.seen.size + rate * 10 * WEBHOOKS;
    await writeEvents(rate * 10, rate);
    await receiver.until(target);
    const latencies = receiver.arrivals.slice(before).map((a) => a.at - a.createdAt);
    rows.push([`steady, ${rate} events/s × ${WEBHOOKS} webhooks, 1 dispatcher: event → first attempt`, String(latencies.length), '', '', '', '', fmt(percentile(latencies, 50), 0), fmt(percentile(latencies, 99), 0), '']);
    await dispatcher.stop('SIGTERM');

    if (receiver.badSignatures) throw new Error(`${receiver.badSignatures} deliveries failed signature verification`);
    printTable(
      ['scenario', 'deliveries', 'start-up s', 'seconds', 'deliveries/s per process', 'succeeded per process (metrics)', 'p50 ms', 'p99 ms', 'CPU ms per delivery: dispatcher / postgres / redis / receiver / total'],
      rows,
    );
    console.log(`\nEvery delivery's X-Service-Signature verified (${receiver.seen.size} unique delivery ids, 0 failures).`);
  } finally {
    await stack.stop();
    await receiver.close();
  }
}

async function createDebtor(stack: Stack, tenant: Tenant): Promise<string> {
  const res = await fetch(`${stack.publicUrl}/public/v1/portfolios/${tenant.portfolioIds[0]}/debtors`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      debtors: [{ externalId: 'bench-debtor', identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'B1', debts: [{ externalId: 'bench-debt', totalAmount: 1e9, currency: 'EUR' }] }],
    }),
  });
  const body = (await res.json()) as { data: { results: { id?: string }[] } };
  const id = body.data.results[0].id;
  if (res.status !== 200 || !id) throw new Error(`debtor batch: ${res.status} ${JSON.stringify(body)}`);
  return id;
}

async function payment(stack: Stack, tenant: Tenant, debtorId: string, externalId: string): Promise<void> {
  const res = await fetch(`${stack.publicUrl}/public/v1/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ portfolioId: tenant.portfolioIds[0], debtorId, externalId, amount: 1.5, currency: 'EUR', paymentDate: '2026-11-20' }),
  });
  if (res.status !== 201) throw new Error(`payment: ${res.status} ${await res.text()}`);
}

async function startDispatcher(stack: Stack): Promise<ServiceProcess & { healthPort?: number }> {
  const dispatcher = await stack.startService('webhook-dispatcher', { LOG_LEVEL: 'info' });
  const ready = await dispatcher.waitForLog((l) => l.msg === 'webhook-dispatcher ready', 30_000);
  dispatcher.retainLogs = false;
  return Object.assign(dispatcher, { healthPort: Number(ready.healthPort) });
}

/**
 * Starts `processes` dispatchers on a backlog and measures, from the moment all are ready, until the
 * receiver has `expected` deliveries (process start-up, ~1 s of module loading, is reported apart).
 */
async function drain(
  stack: Stack,
  processes: number,
  expected: number,
  receiver: VerifyingReceiver,
): Promise<{ seconds: number; deliveries: number; startupSeconds: number; perProcess: string; cpuMsPerDelivery: DrainCpu }> {
  const spawned = performance.now();
  const dispatchers = await Promise.all(Array.from({ length: processes }, () => startDispatcher(stack)));
  const started = performance.now();
  const before = receiver.seen.size;
  const cpuBefore = drainCpu(dispatchers);
  await receiver.until(expected);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = drainCpu(dispatchers);
  const counts = await Promise.all(dispatchers.map((d) => succeeded(d.healthPort!)));
  await Promise.all(dispatchers.map((d) => d.stop('SIGTERM')));
  const deliveries = expected - before;
  return {
    seconds,
    deliveries,
    startupSeconds: (started - spawned) / 1000,
    perProcess: counts.map((c) => (c === null ? '?' : String(c))).join(' / '),
    cpuMsPerDelivery: {
      dispatcher: ((cpuAfter.dispatcher - cpuBefore.dispatcher) / deliveries) * 1000,
      postgres: ((cpuAfter.postgres - cpuBefore.postgres) / deliveries) * 1000,
      redis: ((cpuAfter.redis - cpuBefore.redis) / deliveries) * 1000,
      receiver: ((cpuAfter.receiver - cpuBefore.receiver) / deliveries) * 1000,
    },
  };
}

type DrainCpu = Record<'dispatcher' | 'postgres' | 'redis' | 'receiver', number>;

/**
 * CPU seconds used so far by what a drain runs on: the dispatcher processes (summed), every
 * Postgres backend, Redis, and this process (the receiver; nothing else runs in it during a drain).
 * The other services of the stack are idle then.
 */
function drainCpu(dispatchers: ServiceProcess[]): DrainCpu {
  const shared = cpuSecondsByCommand(['postgres', 'redis-server']);
  const own = process.cpuUsage();
  return {
    dispatcher: dispatchers.reduce((sum, d) => sum + cpuSeconds(d.pid), 0),
    postgres: shared.postgres,
    redis: shared['redis-server'],
    receiver: (own.user + own.system) / 1e6,
  };
}

/** webhook_deliveries_total{outcome="succeeded"} from a dispatcher's /metrics, when it serves one. */
async function succeeded(healthPort: number): Promise<number | null> {
  try {
    // /metrics asks for a bearer token (METRICS_TOKEN or the operator token, docs/adr/0032).
    const text = await (await fetch(`http://127.0.0.1:${String(healthPort)}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
    const line = text.split('\n').find((l) => l.startsWith('webhook_deliveries_total{') && l.includes('outcome="succeeded"'));
    return line ? Number(line.split(' ').pop()) : null;
  } catch {
    return null;
  }
}

const BARE_POSTS = 20_000;
const BARE_CONCURRENCY = 50;

/**
 * Signed POSTs of a delivery's body from bare undici in a process of its own (bare-webhook-sender),
 * to the same receiver: the machine's ceiling in this run, best of three.
 */
async function bareRow(receiverUrl: string, receiver: VerifyingReceiver): Promise<string[]> {
  const secret = 'whsec_bare-ceiling';
  receiver.secrets.set('/bare', Buffer.from(secret, 'utf8'));
  const runs: { posts: number; seconds: number; cpuSeconds: number }[] = [];
  for (let round = 0; round < 3; round += 1) {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [`${__dirname}/baseline/bare-webhook-sender.js`],
        {
          env: {
            ...process.env,
            [BareSenderEnv.url]: `${receiverUrl}/bare`,
            [BareSenderEnv.secret]: secret,
            [BareSenderEnv.data]: receiver.lastData,
            [BareSenderEnv.count]: String(BARE_POSTS),
            [BareSenderEnv.concurrency]: String(BARE_CONCURRENCY),
          },
        },
        (err, out) => (err ? reject(err) : resolve(out)),
      ),
    );
    runs.push(JSON.parse(stdout) as { posts: number; seconds: number; cpuSeconds: number });
  }
  const best = runs.reduce((a, b) => (b.posts / b.seconds > a.posts / a.seconds ? b : a));
  return [
    `ceiling: bare undici, same signed body, c=${BARE_CONCURRENCY}, best of ${runs.map((r) => fmt(r.posts / r.seconds, 0)).join(' / ')}`,
    String(best.posts),
    '',
    fmt(best.seconds, 1),
    fmt(best.posts / best.seconds, 0),
    '',
    '',
    '',
    `sender ${fmt((best.cpuSeconds / best.posts) * 1000, 3)}`,
  ];
}

function backlogRow(name: string, run: Awaited<ReturnType<typeof drain>>, processes: number): string[] {
  const cpu = run.cpuMsPerDelivery;
  const total = cpu.dispatcher + cpu.postgres + cpu.redis + cpu.receiver;
  return [
    name,
    String(run.deliveries),
    fmt(run.startupSeconds, 1),
    fmt(run.seconds, 1),
    fmt(run.deliveries / run.seconds / processes, 0),
    run.perProcess,
    '',
    '',
    [cpu.dispatcher, cpu.postgres, cpu.redis, cpu.receiver, total].map((ms) => fmt(ms, 3)).join(' / '),
  ];
}

const fmt = (n: number, digits: number) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
