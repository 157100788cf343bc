/**
 * POST /public/v1/portfolios/{id}/debtors through the gateway (real processes, NATS, Postgres).
 * Run: npm run build && node dist/bench/debtor-batch.bench.js   (see bench/README.md)
 */
import { createTenant, dropDatabase, OperatorClient, prepareTemplateDatabase, Stack } from '@dc/testing';
import { batchBody } from './baseline/batch';
import { cpuSeconds, cpuSecondsByCommand } from './baseline/proc';

// --repeats N: batches per case (5 by default); more for A/B comparisons of the CPU columns.
const repeatsIndex = process.argv.indexOf('--repeats');
const REPEATS = repeatsIndex > 0 ? Number(process.argv[repeatsIndex + 1]) : 5;

interface Case {
  name: string;
  bodies: string[];
}


// --profile DIR: V8 CPU profiles of the gateway and api-core (as in read-api.bench.ts).
const profileIndex = process.argv.indexOf('--profile');
const PROFILE_DIR = profileIndex > 0 ? process.argv[profileIndex + 1] : undefined;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const template = await prepareTemplateDatabase();
  let stack: Stack | undefined;
  try {
    stack = await Stack.start({
      env: { LOG_LEVEL: 'debug', NATS_REQUEST_TIMEOUT_MS: '30000', DATABASE_STATEMENT_TIMEOUT_MS: '20000', RATE_LIMIT_PER_MINUTE: '1000000' },
      cpuProfileDir: PROFILE_DIR,
    });
    const tenant = await createTenant(new OperatorClient(stack.operatorUrl));
    const url = `${stack.publicUrl}/public/v1/portfolios/${tenant.portfolioIds[0]}/debtors`;
    const post = async (body: string) => {
      const started = performance.now();
      const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' }, body });
      const json = (await res.json()) as { data?: { summary: Record<string, number> } };
      const ms = performance.now() - started;
      if (res.status !== 200 || json.data!.summary.rejected) throw new Error(`unexpected ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
      return { ms, summary: json.data!.summary };
    };
    // Warm-up (JIT, connections, plans), not measured.
    await post(batchBody('warm', 500));
    await post(batchBody('warm', 500));

    const created = Array.from({ length: REPEATS }, (_, r) => batchBody(`new${r}`, 500));
    const cases: Case[] = [
      { name: '500 new debtors x 2 debts, 2 phones', bodies: created },
      { name: 'same 500 x 2 resent (all updates)', bodies: created },
      { name: '500 new debtors x 20 debts', bodies: Array.from({ length: REPEATS }, (_, r) => batchBody(`big${r}`, 500, 20, 2)) },
    ];
    const core = stack.apiCores[0];
    const gateway = stack.gateways[0].process;
    // CPU of each process over a case's batches (the pauses between them are idle): a figure that
    // moves less with the VM's scheduling than wall time does.
    const cpu = () => ({ gateway: cpuSeconds(gateway.pid), apiCore: cpuSeconds(core.pid), postgres: cpuSecondsByCommand(['postgres']).postgres });
    const rows: string[][] = [];
    for (const c of cases) {
      const times: number[] = [];
      const sqlMs: number[] = [];
      const statements = new Set<number>();
      const cpuBefore = cpu();
      for (const body of c.bodies) {
        const before = core.logs.length;
        times.push((await post(body)).ms);
        await new Promise((r) => setTimeout(r, 50));
        const line = core.logs.slice(before).find((l) => l.msg === 'debtor batch written');
        if (line) {
          // In-transaction statements counted by the repository + portfolio reach check + BEGIN + COMMIT.
          statements.add(Number(line.statements) + 3);
          sqlMs.push(Number(line.sqlMs));
        }
      }
      const cpuAfter = cpu();
      const cpuMs = (k: keyof typeof cpuAfter) => (((cpuAfter[k] - cpuBefore[k]) * 1000) / c.bodies.length).toFixed(0);
      rows.push([
        c.name, median(times).toFixed(0), Math.min(...times).toFixed(0), Math.max(...times).toFixed(0), sqlMs.length ? median(sqlMs).toFixed(0) : '?',
        cpuMs('gateway'), cpuMs('apiCore'), cpuMs('postgres'), [...statements].join('/'), `${(c.bodies[0].length / 1024).toFixed(0)} KB`,
      ]);
    }
    const header = ['case', 'median ms', 'min', 'max', 'tx ms (median)', 'CPU ms / batch: gateway', 'api-core', 'postgres', 'SQL statements / batch', 'body'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
    console.log(`debtor batch through the gateway, ${REPEATS} repeats each`);
    console.log(line(header));
    console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    for (const r of rows) console.log(line(r));
  } finally {
    await stack?.stop();
    await dropDatabase(template);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
