import { createTenant, dropDatabase, OperatorClient, prepareTemplateDatabase, PRODUCTION_LOGGING, Stack, withDatabase } from '@dc/testing';
import { ulid } from 'ulid';
import { percentile, printTable, runLoad, timedGet } from './load';

/**
 * Read API throughput and latency through the gateway (gateway → NATS → api-core → Postgres),
 * over 100,000 seeded debtors with debts, phones, calls and payments.
 *   npm run build && node dist/bench/read-api.bench.js [--debtors 100000] [--seconds 10] [--profile DIR]
 * --profile writes a V8 CPU profile of the gateway and api-core into DIR (open it in Chrome DevTools'
 * Performance panel or speedscope) to see where a request's time goes.
 * Target: list pages p50 < 10 ms at 20 concurrent clients; deep pages as fast as early ones.
 */
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const profileIndex = process.argv.indexOf('--profile');
const PROFILE_DIR = profileIndex > 0 ? process.argv[profileIndex + 1] : undefined;
const DEBTORS = arg('debtors', 100_000);
const SECONDS = arg('seconds', 10);
const CONCURRENCY = 20;

async function seed(databaseUrl: string, portfolioId: string): Promise<string[]> {
  const debtorIds: string[] = [];
  await withDatabase(databaseUrl, async (db) => {
    for (let start = 0; start < DEBTORS; start += 10_000) {
      const n = Math.min(10_000, DEBTORS - start);
      const ids = Array.from({ length: n }, () => `dbt_${ulid()}`);
      debtorIds.push(...ids);
      const ext = ids.map((_, i) => `EXT-${start + i}`);
      await db.query(
        `INSERT INTO debtors (id, portfolio_id, external_id, identity_first_name, identity_last_name, identity_document_type,
           identity_document_number, contact_info_address_city, contact_info_address_country)
         SELECT id, $2, ext, 'Name' || ord, 'Surname', 'national_id', 'DOC' || ord, 'Madrid', 'ES'
         FROM unnest($1::text[], $3::text[]) WITH ORDINALITY AS t(id, ext, ord)`,
        [ids, portfolioId, ext],
      );
      await db.query(
        `INSERT INTO debtor_phones (id, debtor_id, phone, phone_e164, position, "primary")
         SELECT 'phn_' || substr(id, 5), id, '+3460' || lpad(ord::text, 7, '0'), '+3460' || lpad(ord::text, 7, '0'), 0, true
         FROM unnest($1::text[]) WITH ORDINALITY AS t(id, ord)`,
        [ids],
      );
      for (const suffix of ['A', 'B']) {
        await db.query(
          `INSERT INTO debts (id, portfolio_id, debtor_id, external_id, total_amount, paid_amount, currency, due_date)
           SELECT 'debt_' || substr(id, 5, 25) || $3, $2, id, 'D-' || id || $3, 100 + ord % 900, 0, 'EUR', '2026-01-15'
           FROM unnest($1::text[]) WITH ORDINALITY AS t(id, ord)`,
          [ids, portfolioId, suffix],
        );
      }
      await db.query(
        `INSERT INTO calls (id, portfolio_id, debtor_id, direction, status, effective_duration_sec, created_at)
         SELECT 'call_' || substr(id, 5), $2, id, 'outbound', 'completed', 42, now() - (ord || ' minutes')::interval
         FROM unnest($1::text[]) WITH ORDINALITY AS t(id, ord)`,
        [ids, portfolioId],
      );
      await db.query(
        `INSERT INTO payments (id, portfolio_id, debtor_id, amount, currency, payment_date, source)
         SELECT 'pay_' || substr(id, 5), $2, id, 25, 'EUR', '2026-02-01', 'panel'
         FROM unnest($1::text[]) WITH ORDINALITY AS t(id, ord) WHERE ord % 2 = 0`,
        [ids, portfolioId],
      );
    }
    await db.query('ANALYZE');
  });
  return debtorIds;
}

async function main(): Promise<void> {
  const template = await prepareTemplateDatabase();
  let stack: Stack | undefined;
  try {
    stack = await Stack.start({ env: { RATE_LIMIT_PER_MINUTE: '1000000', DATABASE_POOL_SIZE: '10', ...PRODUCTION_LOGGING }, cpuProfileDir: PROFILE_DIR });
    stack.discardLogs();
    const tenant = await createTenant(new OperatorClient(stack.operatorUrl));
    const t0 = performance.now();
    const debtorIds = await seed(stack.databaseUrl, tenant.portfolioIds[0]);
    process.stdout.write(`seeded ${DEBTORS} debtors (+${DEBTORS * 2} debts, ${DEBTORS} calls, ${DEBTORS / 2} payments) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

    const base = stack.publicUrl;
    const rows: Record<string, string | number>[] = [];
    const record = (name: string, r: Awaited<ReturnType<typeof runLoad>>, extra: Record<string, string | number> = {}) =>
      rows.push({ scenario: name, requests: r.requests, errors: r.errors, 'req/s': r.rps, 'p50 ms': r.p50, 'p99 ms': r.p99, ...extra });

    // Page walks: every worker follows nextCursor from its own starting point; page depth is tracked
    // to show the cost does not grow with it (keyset, not offset).
    const cursors: (string | null)[] = Array(CONCURRENCY).fill(null);
    const depth: number[] = Array(CONCURRENCY).fill(0);
    const early: number[] = [];
    const deep: number[] = [];
    const pages = Math.ceil(DEBTORS / 50);
    await runLoad({ baseUrl: base, concurrency: CONCURRENCY, durationMs: 2_000, request: async (_w, pool) => timedGet(pool, '/public/v1/portfolios', tenant.key) });
    const walk = await runLoad({
      baseUrl: base,
      concurrency: CONCURRENCY,
      durationMs: SECONDS * 1000,
      request: async (w, pool) => {
        if (cursors[w] === null && depth[w] === 0 && w > 0) {
          // Start workers at different depths, including the far end of the table.
          cursors[w] = Buffer.from(`v1:${debtorIds[Math.floor((w / CONCURRENCY) * debtorIds.length)]}`).toString('base64url');
          depth[w] = Math.floor((w / CONCURRENCY) * pages);
        }
        const r = await timedGet(pool, `/public/v1/debtors?limit=50${cursors[w] ? `&cursor=${cursors[w]}` : ''}`, tenant.key);
        (depth[w] < 100 ? early : depth[w] > pages - 300 ? deep : []).push(r.ms);
        cursors[w] = r.body?.pagination?.nextCursor ?? null;
        depth[w] = cursors[w] ? depth[w] + 1 : 0;
        return r;
      },
    });
    record('GET /debtors?limit=50 (page walks)', walk, { 'early pages p50': percentile(early, 50), 'last 300 pages p50': percentile(deep, 50) });

    // One client: the latency of a page without queueing behind the other 19 (the machine's two
    // cores are shared by the load generator, gateway, api-core, NATS and Postgres).
    let soloCursor: string | null = null;
    const solo = await runLoad({
      baseUrl: base,
      concurrency: 1,
      durationMs: (SECONDS * 1000) / 2,
      request: async (_w, pool) => {
        const r = await timedGet(pool, `/public/v1/debtors?limit=50${soloCursor ? `&cursor=${soloCursor}` : ''}`, tenant.key);
        soloCursor = r.body?.pagination?.nextCursor ?? null;
        return r;
      },
    });
    record('GET /debtors?limit=50, 1 client', solo);

    const byId = await runLoad({
      baseUrl: base,
      concurrency: CONCURRENCY,
      durationMs: SECONDS * 1000,
      request: (_w, pool) => timedGet(pool, `/public/v1/debtors/${debtorIds[Math.floor(Math.random() * debtorIds.length)]}`, tenant.key),
    });
    record('GET /debtors/{id}', byId);

    for (const path of ['/public/v1/debts?limit=50', '/public/v1/calls?limit=50', '/public/v1/payments?limit=50']) {
      const r = await runLoad({ baseUrl: base, concurrency: CONCURRENCY, durationMs: (SECONDS * 1000) / 2, request: (_w, pool) => timedGet(pool, path, tenant.key) });
      record(`GET ${path.replace('/public/v1', '')} (first page)`, r);
    }
    printTable(`Read API, ${DEBTORS} debtors, ${CONCURRENCY} concurrent clients, ${SECONDS} s per scenario (LOG_LEVEL=info: one log line per request in each service)`, rows);
  } finally {
    await stack?.stop();
    await dropDatabase(template);
  }
  if (PROFILE_DIR) process.stdout.write(`CPU profiles of the services: ${PROFILE_DIR}/*.cpuprofile\n`);
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
