import { readFileSync, readdirSync } from 'node:fs';
import { createTenant, OPERATOR_TOKEN, OperatorClient, PrivatePostgres, PRODUCTION_LOGGING, Stack, Tenant, withDatabase } from '@dc/testing';
import { Pool } from 'undici';
import { ulid } from 'ulid';
import { percentile, printTable, runLoad, timedGet } from './load';
import { numberOption } from './options';

/**
 * Reads on a streaming replica beside the same reads on the primary, in one invocation, against one
 * private primary and its replica (pg_basebackup, docs/adr/0050):
 *   npm run bench:replicas [-- --debtors 20000 --seconds 10]
 * For each configuration (no DATABASE_REPLICA_URLS; the replica in DATABASE_REPLICA_URLS), the same
 * stack (one gateway, one api-core) runs:
 *  1. page walks of GET /debtors?limit=50 by a read-only key, 20 clients: req/s, p50, p99, and the CPU
 *     seconds each Postgres server spent (what reads on a replica leave the primary for writes);
 *  2. the same reads under a write load: 4 writers each send a 10-debtor batch and read one of its
 *     debtors back at once (read-your-writes): their read's latency, where it ran, and api-core's
 *     wait for a replica that replayed the batch.
 * On two cores expect no throughput gain: the figures are the routing's overhead and the CPU moved.
 */
const DEBTORS = numberOption('debtors', 20_000);
const SECONDS = numberOption('seconds', 10);
const READERS = 20;
const WRITERS = 4;

/** CPU seconds of a Postgres server: its postmaster (with the backends it reaped) and its live children. */
function serverCpuSeconds(pid: number): number {
  const ticks = (stat: string[], fields: number[]) => fields.reduce((sum, f) => sum + Number(stat[f]), 0);
  const statOf = (p: number | string) => readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // After the command: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
  let total = ticks(statOf(pid), [11, 12, 13, 14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = statOf(entry);
      if (Number(stat[1]) === pid) total += ticks(stat, [11, 12]);
    } catch {
      // exited meanwhile: counted in the postmaster's cutime
    }
  }
  return total / 100; // USER_HZ
}

async function seed(url: string, portfolioId: string): Promise<string[]> {
  const ids = Array.from({ length: DEBTORS }, () => `dbt_${ulid()}`);
  await withDatabase(url, async (db) => {
    await db.query(
      `INSERT INTO debtors (id, portfolio_id, external_id, identity_first_name, identity_last_name, identity_document_type,
         identity_document_number, contact_info_address_city, contact_info_address_country)
       SELECT id, $2, 'EXT-' || ord, 'Name' || ord, 'Surname', 'national_id', 'DOC' || ord, 'Madrid', 'ES'
       FROM unnest($1::text[]) WITH ORDINALITY AS t(id, ord)`,
      [ids, portfolioId],
    );
    await db.query(
      `INSERT INTO debtor_phones (id, debtor_id, phone, phone_e164, position, "primary")
       SELECT 'phn_' || substr(id, 5), id, '+3460' || lpad(ord::text, 7, '0'), '+3460' || lpad(ord::text, 7, '0'), 0, true
       FROM unnest($1::text[]) WITH ORDINALITY AS t(id, ord)`,
      [ids],
    );
    await db.query('ANALYZE');
  });
  return ids;
}

/** api-core's read counters and its read-your-writes wait histogram, from /metrics. */
async function coreMetrics(url: string): Promise<{ reads: Record<string, number>; wait: { le: number; count: number }[] }> {
  const text = await (await fetch(url, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
  const reads: Record<string, number> = {};
  for (const m of text.matchAll(/^api_core_db_reads_total\{target="(\w+)",reason="(\w+)"\} (\d+)$/gm)) reads[`${m[1]}/${m[2]}`] = Number(m[3]);
  const wait = new Map<number, number>();
  for (const m of text.matchAll(/^api_core_read_your_writes_wait_seconds_bucket\{le="([^"]+)",target="\w+"\} (\d+)$/gm)) {
    const le = m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]);
    wait.set(le, (wait.get(le) ?? 0) + Number(m[2]));
  }
  return { reads, wait: [...wait].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le) };
}

/** The bucket bound below which `p` % of the observations fall ("≤ x ms"). */
function bucketPercentile(wait: { le: number; count: number }[], p: number): string {
  const total = wait.at(-1)?.count ?? 0;
  if (!total) return '–';
  const bucket = wait.find((b) => b.count >= (p / 100) * total);
  return bucket && Number.isFinite(bucket.le) ? `≤ ${bucket.le * 1000} ms` : '> 1 s';
}

const share = (reads: Record<string, number>, prefix: string) => {
  const total = Object.values(reads).reduce((a, b) => a + b, 0);
  const part = Object.entries(reads).filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v, 0);
  return total ? `${((100 * part) / total).toFixed(0)} %` : '–';
};

async function run(label: string, primary: PrivatePostgres, replica: PrivatePostgres, database: { url: string; appUrl: string }, replicaUrls: string, rows: Record<string, string | number>[]): Promise<void> {
  const stack = await Stack.start({
    database,
    env: { RATE_LIMIT_PER_MINUTE: '1000000', DATABASE_POOL_SIZE: '10', DATABASE_REPLICA_URLS: replicaUrls, ...PRODUCTION_LOGGING },
  });
  try {
    const ready = await stack.apiCores[0].waitForLog((l) => l.msg === 'api-core ready');
    stack.discardLogs();
    const metricsUrl = `http://127.0.0.1:${String(ready.healthPort)}/metrics`;
    const tenant: Tenant = await createTenant(new OperatorClient(stack.operatorUrl));
    const ids = await seed(database.url, tenant.portfolioIds[0]);
    await waitForReplay(primary, replica);
    const walk = (key: string) => {
      const cursors: (string | null)[] = [];
      return async (w: number, pool: Pool) => {
        if (cursors[w] === undefined) cursors[w] = Buffer.from(`v1:${ids[Math.floor((w / READERS) * ids.length)]}`).toString('base64url');
        const r = await timedGet(pool, `/public/v1/debtors?limit=50${cursors[w] ? `&cursor=${cursors[w]}` : ''}`, key);
        cursors[w] = r.body?.pagination?.nextCursor ?? null;
        return r;
      };
    };
    await runLoad({ baseUrl: stack.publicUrl, concurrency: READERS, durationMs: 2_000, request: walk(tenant.readKey) });

    const cpu0 = [serverCpuSeconds(primary.pid), serverCpuSeconds(replica.pid)];
    const reads = await runLoad({ baseUrl: stack.publicUrl, concurrency: READERS, durationMs: SECONDS * 1000, request: walk(tenant.readKey) });
    const cpu1 = [serverCpuSeconds(primary.pid), serverCpuSeconds(replica.pid)];
    rows.push({
      run: label, load: `reads, ${READERS} clients`, 'req/s': reads.rps, 'p50 ms': reads.p50, 'p99 ms': reads.p99, errors: reads.errors,
      'primary CPU s': cpu1[0] - cpu0[0], 'replica CPU s': cpu1[1] - cpu0[1],
    });

    // Reads beside writers that read their own batch back.
    const before = await coreMetrics(metricsUrl);
    const own: number[] = [];
    let writes = 0;
    let missing = 0;
    const writer = async (w: number, pool: Pool) => {
      const externalIds = Array.from({ length: 10 }, (_, i) => `w${w}-${writes}-${i}-${ulid()}`);
      const t0 = performance.now();
      const res = await pool.request({
        method: 'POST', path: `/public/v1/portfolios/${tenant.portfolioIds[0]}/debtors`,
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ debtors: externalIds.map((externalId) => ({ externalId, identityFirstName: 'W', identityDocumentType: 'national_id', identityDocumentNumber: externalId })) }),
      });
      const body = (await res.body.json()) as { data?: { results: { id: string }[] } };
      if (res.statusCode !== 200 || !body.data) return { ok: false, ms: performance.now() - t0 };
      writes += 1;
      const back = await timedGet(pool, `/public/v1/debtors/${body.data.results[9].id}`, tenant.key);
      if (back.ok) own.push(back.ms);
      else missing += 1;
      return { ok: back.ok, ms: performance.now() - t0 };
    };
    const cpu2 = [serverCpuSeconds(primary.pid), serverCpuSeconds(replica.pid)];
    const [mixedReads] = await Promise.all([
      runLoad({ baseUrl: stack.publicUrl, concurrency: READERS - WRITERS, durationMs: SECONDS * 1000, request: walk(tenant.readKey) }),
      runLoad({ baseUrl: stack.publicUrl, concurrency: WRITERS, durationMs: SECONDS * 1000, request: writer }),
    ]);
    const cpu3 = [serverCpuSeconds(primary.pid), serverCpuSeconds(replica.pid)];
    const after = await coreMetrics(metricsUrl);
    const ownReads = Object.fromEntries(Object.entries(after.reads).map(([k, v]) => [k, v - (before.reads[k] ?? 0)]));
    const wait = after.wait.map((b, i) => ({ le: b.le, count: b.count - (before.wait[i]?.count ?? 0) }));
    rows.push({
      run: label, load: `reads, ${READERS - WRITERS} clients + ${WRITERS} writers`, 'req/s': mixedReads.rps, 'p50 ms': mixedReads.p50, 'p99 ms': mixedReads.p99, errors: mixedReads.errors,
      'primary CPU s': cpu3[0] - cpu2[0], 'replica CPU s': cpu3[1] - cpu2[1],
      'batches/s': writes / SECONDS, 'own read p50 ms': percentile(own, 50), 'own read p99 ms': percentile(own, 99), 'own read missing': missing,
      'reads on replica': share(ownReads, 'replica/'), 'RYW wait p50': bucketPercentile(wait, 50), 'RYW wait p99': bucketPercentile(wait, 99),
      'RYW on primary': String(ownReads['primary/replica_behind'] ?? 0),
    });
  } finally {
    await stack.stop();
  }
}

/** Until the replica has replayed everything the primary has written. */
async function waitForReplay(primary: PrivatePostgres, replica: PrivatePostgres): Promise<void> {
  const target = await withDatabase(primary.url, async (c) => (await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn);
  for (;;) {
    const done = await withDatabase(replica.url, async (c) => (await c.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [target])).rows[0].done);
    if (done) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const primary = await PrivatePostgres.create();
  let replica: PrivatePostgres | undefined;
  try {
    const database = await primary.createDatabase();
    replica = await PrivatePostgres.replicaOf(primary);
    const rows: Record<string, string | number>[] = [];
    await run('primary only', primary, replica, database, '', rows);
    await run('reads on the replica', primary, replica, database, replica.appUrl, rows);
    printTable(
      `Reads on a streaming replica beside the primary only (${DEBTORS} debtors per run, ${SECONDS} s per load; one gateway, one api-core, private primary and replica on this machine; ` +
        'RYW: read-your-writes, the writer reading its batch back at once; its wait is api-core\'s histogram bucket)',
      rows,
    );
  } finally {
    await replica?.destroy();
    await primary.destroy();
  }
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
