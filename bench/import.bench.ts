/**
 * CSV portfolio load through the real routes (targets: docs/adr/0022): a generated file of 1,000,000
 * rows (one debtor with one debt and one phone each), uploaded with upload-url + PUT, enqueued in add
 * mode and polled to completion; then the same file again in update mode. Prints rows/s end to end
 * (with and without the upload) and the importer's resident memory at 100k rows and at the end.
 * Run: npm run bench:import [-- --rows=100000 --chunk=5000]   (see bench/README.md)
 */
import type { ImportMode, ImportView } from '@dc/contracts';
import {
  createTenant, dropDatabase, enqueueImport, generatedHeader, getImport, identityMapping, OperatorClient, prepareTemplateDatabase,
  PRODUCTION_LOGGING, ServiceProcess, Stack, uploadCsv, writeGeneratedCsv,
} from '@dc/testing';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** `--name=value` or `--name value`. */
const arg = (name: string, fallback: number): number => {
  const inline = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (inline) return Number(inline.slice(name.length + 3));
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROWS = arg('rows', 1_000_000);
/** Rows per chunk (IMPORT_CHUNK_ROWS); the production default unless given. */
const CHUNK = arg('chunk', 0);
const POLL_MS = 250;
/** The first memory checkpoint: 100k rows, or a tenth of a smaller run. */
const EARLY = Math.min(100_000, Math.floor(ROWS / 10));

/** Resident set size and its high-water mark of a process, in MiB (Linux /proc). */
function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

interface Run {
  mode: ImportMode;
  uploadS: number;
  importS: number;
  view: ImportView;
  /** Highest RSS sampled up to the first checkpoint and over the whole run (MiB). */
  rssEarly: number;
  rssEnd: number;
  hwmEnd: number;
}

async function runOnce(stack: Stack, key: string, portfolioId: string, file: string, mode: ImportMode, importer: ServiceProcess): Promise<Run> {
  const uploadStarted = performance.now();
  const storageKey = await uploadCsv(stack.publicUrl, key, portfolioId, { path: file }, path.basename(file));
  const uploadS = (performance.now() - uploadStarted) / 1000;

  const started = performance.now();
  const queued = await enqueueImport(stack.publicUrl, key, portfolioId, { storageKey, columnMapping: identityMapping(generatedHeader({ email: false })), conflictResolution: mode });
  if (queued.status !== 202) throw new Error(`enqueue ${mode}: ${queued.status} ${JSON.stringify(queued.body)}`);
  let peak = 0;
  let rssEarly = NaN;
  for (;;) {
    peak = Math.max(peak, memory(importer.pid).rss);
    const res = await getImport(stack.publicUrl, key, queued.body.data.id);
    if (res.status !== 200) throw new Error(`GET import: ${res.status} ${JSON.stringify(res.body)}`);
    const view = res.body.data;
    if (Number.isNaN(rssEarly) && view.processedRows >= EARLY) rssEarly = peak;
    if (view.status === 'completed' || view.status === 'failed') {
      const importS = (performance.now() - started) / 1000;
      const { rss, hwm } = memory(importer.pid);
      return { mode, uploadS, importS, view, rssEarly, rssEnd: Math.max(peak, rss), hwmEnd: hwm };
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function startImporter(stack: Stack): Promise<ServiceProcess> {
  const importer = await stack.startService('importer', CHUNK ? { IMPORT_CHUNK_ROWS: String(CHUNK) } : {});
  await importer.waitForLog((l) => l.msg === 'importer ready', 30_000);
  importer.retainLogs = false;
  importer.logs.length = 0;
  return importer;
}

async function main(): Promise<void> {
  const template = await prepareTemplateDatabase();
  const file = path.join(tmpdir(), `bench-import-${process.pid}-${ROWS}.csv`);
  let stack: Stack | undefined;
  const runs: Run[] = [];
  try {
    const genStarted = performance.now();
    const bytes = await writeGeneratedCsv(file, ROWS, { prefix: 'b', email: false });
    console.log(`generated ${ROWS.toLocaleString('en')} rows, ${(bytes / 1024 / 1024).toFixed(1)} MiB in ${((performance.now() - genStarted) / 1000).toFixed(1)} s: ${file}`);

    stack = await Stack.start({ env: { LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', NATS_REQUEST_TIMEOUT_MS: '30000', ...PRODUCTION_LOGGING } });
    stack.discardLogs();
    const tenant = await createTenant(new OperatorClient(stack.operatorUrl), { name: 'Bench imports' });
    const portfolioId = tenant.portfolioIds[0];
    // A fresh importer per mode: its high-water mark (VmHWM) is then that run's own.
    for (const mode of ['add', 'update'] as const) {
      const importer = await startImporter(stack);
      runs.push(await runOnce(stack, tenant.key, portfolioId, file, mode, importer));
      await importer.stop('SIGTERM');
    }
  } finally {
    await stack?.stop();
    await dropDatabase(template);
    rmSync(file, { force: true });
  }

  const mib = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(0));
  const header = ['rows', 'mode', 'status', 'created/updated/errors', 'upload s', 'import s', 'rows/s (import)', 'rows/s (upload + import)', `RSS MiB @${EARLY / 1000}k`, `RSS MiB @${ROWS / 1000}k`, 'VmHWM MiB'];
  const rows = runs.map((r) => [
    r.view.totalRows.toLocaleString('en'),
    r.mode,
    r.view.status + (r.view.failureReason ? ` (${r.view.failureReason})` : ''),
    `${r.view.created}/${r.view.updated}/${r.view.errors}`,
    r.uploadS.toFixed(1),
    r.importS.toFixed(1),
    Math.round(ROWS / r.importS).toLocaleString('en'),
    Math.round(ROWS / (r.uploadS + r.importS)).toLocaleString('en'),
    mib(r.rssEarly),
    mib(r.rssEnd),
    mib(r.hwmEnd),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`CSV load through the gateway (upload-url + PUT, enqueue, poll every ${POLL_MS} ms)${CHUNK ? `, IMPORT_CHUNK_ROWS=${CHUNK}` : ''}`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  // Every row must have been created (add) and then updated (update): anything else is a failed run.
  const [add, update] = runs;
  if (add.view.created !== ROWS || update.view.updated !== ROWS || add.view.errors || update.view.errors) {
    console.error('unexpected counters: the load did not create and then update every row');
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
