/**
 * Webhook delivery: events written through the public API → signed deliveries to a local receiver
 * that verifies every signature. Prints deliveries/s per dispatcher process (one and two processes,
 * and with one receiver that never answers) and event → first-attempt latency.
 * Run: npm run bench:webhooks [-- --events 2500 --webhooks 4 --warm-up-events 500]   (see bench/README.md)
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { createTenant, OPERATOR_TOKEN, OperatorClient, prepareTemplateDatabase, PRODUCTION_LOGGING, ServiceProcess, Stack, Tenant } from '@dc/testing';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const EVENTS = arg('events', 2500);
const WEBHOOKS = arg('webhooks', 4);
const WRITERS = 16;
const WARM_UP_EVENTS = arg('warm-up-events', 500);

interface Arrival {
  path: string;
  id: string;
  createdAt: number;
  at: number;
}

/**
 * Answers 204 after checking X-Service-Signature over the raw bytes; `/never` never answers; `/extra`
 * is a prompt receiver whose deliveries are verified but not counted (the fifth webhook).
 */
class VerifyingReceiver {
  readonly secrets = new Map<string, Buffer>();
  readonly arrivals: Arrival[] = [];
  readonly seen = new Set<string>();
  badSignatures = 0;
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
      const event = JSON.parse(body.toString('utf8')) as { id: string; createdAt: string };
      if (path !== '/extra' && !this.seen.has(event.id)) {
        this.seen.add(event.id);
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

    // 3. Steady state: events at a fixed rate with a dispatcher running; event → first attempt.
    const dispatcher = await startDispatcher(stack);
    const rate = 100;
    const before = receiver.arrivals.length;
    const target = receiver.seen.size + rate * 10 * WEBHOOKS;
    await writeEvents(rate * 10, rate);
    await receiver.until(target);
    const latencies = receiver.arrivals.slice(before).map((a) => a.at - a.createdAt);
    rows.push([`steady, ${rate} events/s × ${WEBHOOKS} webhooks, 1 dispatcher: event → first attempt`, String(latencies.length), '', '', '', '', fmt(percentile(latencies, 50), 0), fmt(percentile(latencies, 99), 0)]);
    await dispatcher.stop('SIGTERM');

    if (receiver.badSignatures) throw new Error(`${receiver.badSignatures} deliveries failed signature verification`);
    printTable(['scenario', 'deliveries', 'start-up s', 'seconds', 'deliveries/s per process', 'succeeded per process (metrics)', 'p50 ms', 'p99 ms'], rows);
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
): Promise<{ seconds: number; deliveries: number; startupSeconds: number; perProcess: string }> {
  const spawned = performance.now();
  const dispatchers = await Promise.all(Array.from({ length: processes }, () => startDispatcher(stack)));
  const started = performance.now();
  const before = receiver.seen.size;
  await receiver.until(expected);
  const seconds = (performance.now() - started) / 1000;
  const counts = await Promise.all(dispatchers.map((d) => succeeded(d.healthPort!)));
  await Promise.all(dispatchers.map((d) => d.stop('SIGTERM')));
  return {
    seconds,
    deliveries: expected - before,
    startupSeconds: (started - spawned) / 1000,
    perProcess: counts.map((c) => (c === null ? '?' : String(c))).join(' / '),
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

function backlogRow(name: string, run: Awaited<ReturnType<typeof drain>>, processes: number): string[] {
  return [name, String(run.deliveries), fmt(run.startupSeconds, 1), fmt(run.seconds, 1), fmt(run.deliveries / run.seconds / processes, 0), run.perProcess, '', ''];
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
