import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  samples: number[];
}

/**
 * Closed-loop load: `concurrency` workers each issue requests back to back for `durationMs`
 * over keep-alive connections (undici Pool), recording each latency in ms.
 */
export async function runLoad(options: {
  baseUrl: string;
  concurrency: number;
  durationMs: number;
  request: (worker: number, pool: Pool) => Promise<{ ok: boolean; ms: number }>;
}): Promise<LoadResult> {
  const pool = new Pool(options.baseUrl, { connections: options.concurrency, pipelining: 1 });
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const { ok, ms } = await options.request(worker, pool);
        if (ok) samples.push(ms);
        else errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return { requests: samples.length, errors, rps: samples.length / elapsed, p50: percentile(samples, 50), p99: percentile(samples, 99), samples };
}

/** One timed GET; the body is parsed so the cost of reading it is included. */
export async function timedGet(pool: Pool, path: string, key: string): Promise<{ ok: boolean; ms: number; body: any }> {
  const t0 = performance.now();
  const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${key}` } });
  const body = await res.body.json();
  return { ok: res.statusCode === 200, ms: performance.now() - t0, body };
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: string | number | undefined) => (v === undefined ? '' : typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(1)) : v);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  process.stdout.write(`\n${title}\n${line(columns)}\n| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |\n`);
  for (const row of rows) process.stdout.write(`${line(columns.map((c) => cell(row[c])))}\n`);
}
