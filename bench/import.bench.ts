/**
 * CSV portfolio load through the real routes (targets: docs/adr/0022, 0049): a generated file of
 * 1,000,000 rows (one debtor with one debt and one phone each), uploaded with upload-url + PUT,
 * enqueued and polled to completion: a dry run in add mode, add, a dry run in update mode, update —
 * each dry run at least as fast as the real run after it, with the same counters. Prints rows/s end
 * to end (with and without the upload) and the importer's resident memory at 100k rows and at the
 * end. Then (ADR 0049): the rejected-rows file of a load of as many rows with 10 % refused, streamed
 * to disk beside a plain disk copy of as many bytes and a bare Node HTTP server serving them, with the
 * gateway's RSS; and previews of a file of 1 GiB (it reads the start only: under a second).
 * Run: npm run bench:import [-- --rows=100000 --chunk=5000 --preview-mib=1024]   (see bench/README.md)
 */
import type { ImportMode, ImportView } from '@dc/contracts';
import {
  createTenant, dropDatabase, enqueueImport, generatedHeader, getImport, identityMapping, OperatorClient, prepareTemplateDatabase,
  previewImport, PRODUCTION_LOGGING, ServiceProcess, Stack, uploadCsv, withDatabase, writeGeneratedCsv,
} from '@dc/testing';
import { createReadStream, createWriteStream, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** `--name=value` or `--name value`. */
const arg = (name: string, fallback: number): number => {
  const inline = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (inline) return Number(inline.slice(name.length + 3));
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROWS = arg('rows', 1_000_000);
/** `--dry=0`: the real runs alone (a dry run's rolled-back rows stay as dead tuples until vacuum, which the real run after it meets). */
const DRY = arg('dry', 1) !== 0;
/**
 * `--vacuum=1`: VACUUM the tables a load writes after each dry run, as autovacuum does after a large
 * rollback (off on this machine): without it the real run after a dry run meets its dead tuples.
 */
const VACUUM = arg('vacuum', 0) === 1;
/** Size of the file previewed, MiB. */
const PREVIEW_MIB = arg('preview-mib', 1024);
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
  dryRun: boolean;
  uploadS: number;
  importS: number;
  view: ImportView;
  /** Highest RSS sampled up to the first checkpoint and over the whole run (MiB). */
  rssEarly: number;
  rssEnd: number;
  hwmEnd: number;
}

async function runOnce(stack: Stack, key: string, portfolioId: string, file: string, mode: ImportMode, importer: ServiceProcess, dryRun = false): Promise<Run> {
  const uploadStarted = performance.now();
  const storageKey = await uploadCsv(stack.publicUrl, key, portfolioId, { path: file }, path.basename(file));
  const uploadS = (performance.now() - uploadStarted) / 1000;

  const started = performance.now();
  const queued = await enqueueImport(stack.publicUrl, key, portfolioId, { storageKey, columnMapping: identityMapping(generatedHeader({ email: false })), conflictResolution: mode, dryRun });
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
      return { mode, dryRun, uploadS, importS, view, rssEarly, rssEnd: Math.max(peak, rss), hwmEnd: hwm };
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

/**
 * The rejected-rows file streamed to disk, beside two twins of the same bytes: a plain copy from disk
 * to disk, and the file served by a bare Node HTTP server and fetched as the gateway's answer is.
 */
interface RejectedStream {
  rejected: number;
  bytes: number;
  seconds: number;
  copySeconds: number;
  bareHttpSeconds: number;
  gatewayRssBefore: number;
  gatewayRssPeak: number;
}

async function streamRejected(stack: Stack, key: string, importId: string, rejected: number): Promise<RejectedStream> {
  const gateway = stack.gateways[0].process;
  const out = path.join(tmpdir(), `bench-rejected-${process.pid}.csv`);
  const copy = path.join(tmpdir(), `bench-copy-${process.pid}.csv`);
  try {
    const gatewayRssBefore = memory(gateway.pid).rss;
    let gatewayRssPeak = gatewayRssBefore;
    const sampler = setInterval(() => (gatewayRssPeak = Math.max(gatewayRssPeak, memory(gateway.pid).rss)), 50);
    const started = performance.now();
    const res = await fetch(`${stack.publicUrl}/public/v1/imports/${importId}/rejected-rows`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200 || !res.body) throw new Error(`rejected-rows: ${res.status} ${await res.text()}`);
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(out));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const bytes = statSync(out).size;
    const copyStarted = performance.now();
    await pipeline(createReadStream(out), createWriteStream(copy));
    const copySeconds = (performance.now() - copyStarted) / 1000;
    const bareHttpSeconds = await bareHttpFetch(out, copy);
    return { rejected, bytes, seconds, copySeconds, bareHttpSeconds, gatewayRssBefore, gatewayRssPeak };
  } finally {
    rmSync(out, { force: true });
    rmSync(copy, { force: true });
  }
}

/** Seconds to fetch `file` from a bare Node HTTP server (a stream of it, nothing else) into `target`. */
async function bareHttpFetch(file: string, target: string): Promise<number> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(target));
    return (performance.now() - started) / 1000;
  } finally {
    server.close();
  }
}

/** A file of at most `mib` MiB (the upload limit is 1 GiB): the generated file's rows repeated (its header once), whole rows only. */
async function writeLargeFile(target: string, source: string, mib: number): Promise<number> {
  const out = createWriteStream(target);
  const text = readFileSync(source);
  const body = text.subarray(text.indexOf(10) + 1);
  const limit = mib * 1024 * 1024;
  out.write(text.subarray(0, text.indexOf(10) + 1));
  let bytes = text.indexOf(10) + 1;
  while (bytes < limit) {
    const room = limit - bytes;
    const piece = body.length <= room ? body : body.subarray(0, body.lastIndexOf(10, room - 1) + 1);
    if (piece.length === 0) break;
    if (!out.write(piece)) await new Promise<void>((r) => out.once('drain', () => r()));
    bytes += piece.length;
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return bytes;
}

async function previews(stack: Stack, key: string, portfolioId: string, file: string, times: number): Promise<number[]> {
  const storageKey = await uploadCsv(stack.publicUrl, key, portfolioId, { path: file }, path.basename(file));
  const ms: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const started = performance.now();
    const res = await previewImport(stack.publicUrl, key, portfolioId, { storageKey });
    ms.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`preview: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return ms;
}

async function main(): Promise<void> {
  const template = await prepareTemplateDatabase();
  const file = path.join(tmpdir(), `bench-import-${process.pid}-${ROWS}.csv`);
  const badFile = path.join(tmpdir(), `bench-import-bad-${process.pid}-${ROWS}.csv`);
  const largeFile = path.join(tmpdir(), `bench-import-large-${process.pid}.csv`);
  let stack: Stack | undefined;
  const runs: Run[] = [];
  let rejected: RejectedStream | undefined;
  let previewMs: number[] = [];
  let largeBytes = 0;
  try {
    const genStarted = performance.now();
    const bytes = await writeGeneratedCsv(file, ROWS, { prefix: 'b', email: false });
    console.log(`generated ${ROWS.toLocaleString('en')} rows, ${(bytes / 1024 / 1024).toFixed(1)} MiB in ${((performance.now() - genStarted) / 1000).toFixed(1)} s: ${file}`);

    stack = await Stack.start({ env: { LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', NATS_REQUEST_TIMEOUT_MS: '30000', ...PRODUCTION_LOGGING } });
    stack.discardLogs();
    const tenant = await createTenant(new OperatorClient(stack.operatorUrl), { name: 'Bench imports', portfolios: 2 });
    const portfolioId = tenant.portfolioIds[0];
    // A fresh importer per run: its high-water mark (VmHWM) is then that run's own. Each dry run
    // before the real run of the same file on the same data.
    const plan = [['add', true], ['add', false], ['update', true], ['update', false]] as const;
    for (const [mode, dryRun] of plan.filter(([, dry]) => DRY || !dry)) {
      const importer = await startImporter(stack);
      runs.push(await runOnce(stack, tenant.key, portfolioId, file, mode, importer, dryRun));
      await importer.stop('SIGTERM');
      if (dryRun && VACUUM) {
        await withDatabase(stack.databaseUrl, (c) => c.query('VACUUM (ANALYZE) debtors, debts, debtor_phones, debtor_emails, payments'));
      }
    }

    // As many rows, one in ten refused (its phone): the rejected-rows file, streamed.
    const bad = new Set(Array.from({ length: Math.floor(ROWS / 10) }, (_, k) => k * 10 + 3));
    await writeGeneratedCsv(badFile, ROWS, { prefix: 'r', email: false, badPhoneRows: bad });
    const importer = await startImporter(stack);
    const loaded = await runOnce(stack, tenant.key, tenant.portfolioIds[1], badFile, 'add', importer);
    await importer.stop('SIGTERM');
    if (loaded.view.errors !== bad.size) throw new Error(`the load with refused rows: ${JSON.stringify(loaded.view)}`);
    rejected = await streamRejected(stack, tenant.key, loaded.view.id, bad.size);

    largeBytes = await writeLargeFile(largeFile, file, PREVIEW_MIB);
    previewMs = await previews(stack, tenant.key, tenant.portfolioIds[1], largeFile, 5);
  } catch (err) {
    // The runs measured so far are still printed.
    console.error(err);
    process.exitCode = 1;
  } finally {
    await stack?.stop();
    await dropDatabase(template);
    for (const f of [file, badFile, largeFile]) rmSync(f, { force: true });
  }

  const mib = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(0));
  const header = ['rows', 'mode', 'status', 'created/updated/errors', 'upload s', 'import s', 'rows/s (import)', 'rows/s (upload + import)', `RSS MiB @${EARLY / 1000}k`, `RSS MiB @${ROWS / 1000}k`, 'VmHWM MiB'];
  const rows = runs.map((r) => [
    r.view.totalRows.toLocaleString('en'),
    r.mode + (r.dryRun ? ' (dry run)' : ''),
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
  console.log(
    `CSV load through the gateway (upload-url + PUT, enqueue, poll every ${POLL_MS} ms)${CHUNK ? `, IMPORT_CHUNK_ROWS=${CHUNK}` : ''}` +
      `${DRY ? (VACUUM ? ', VACUUM after each dry run' : ', no VACUUM after the dry runs (autovacuum is off)') : ', no dry runs'}`,
  );
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  // Every row must have been created (add) and then updated (update), each dry run counting the same.
  const real = runs.filter((r) => !r.dryRun);
  const [add, update] = real;
  if (add.view.created !== ROWS || update.view.updated !== ROWS || add.view.errors || update.view.errors) {
    console.error('unexpected counters: the load did not create and then update every row');
    process.exitCode = 1;
  }
  for (const dry of runs.filter((r) => r.dryRun)) {
    const after = real.find((r) => r.mode === dry.mode)!;
    const counters = (v: ImportView) => [v.created, v.updated, v.unchanged, v.errors].join('/');
    console.log(`dry run ${dry.mode}: ${dry.importS.toFixed(1)} s vs real ${after.importS.toFixed(1)} s (${(dry.importS / after.importS).toFixed(2)}×); counters ${counters(dry.view)} vs ${counters(after.view)}`);
    if (counters(dry.view) !== counters(after.view)) {
      console.error(`the dry run's counters differ from the real run's (${dry.mode})`);
      process.exitCode = 1;
    }
  }
  if (rejected) {
    const r = rejected;
    const mibs = (b: number, sec: number) => (b / 1024 / 1024 / sec).toFixed(1);
    console.log(
      `rejected rows: ${r.rejected.toLocaleString('en')} rows, ${(r.bytes / 1024 / 1024).toFixed(1)} MiB streamed in ${r.seconds.toFixed(2)} s ` +
        `(${mibs(r.bytes, r.seconds)} MiB/s; the same bytes copied disk to disk ${mibs(r.bytes, r.copySeconds)} MiB/s, ` +
        `from a bare Node HTTP server ${mibs(r.bytes, r.bareHttpSeconds)} MiB/s); ` +
        `gateway RSS ${r.gatewayRssBefore.toFixed(0)} → peak ${r.gatewayRssPeak.toFixed(0)} MiB`,
    );
  }
  if (previewMs.length) {
    const sorted = [...previewMs].sort((a, b) => a - b);
    console.log(`preview of a ${(largeBytes / 1024 / 1024).toFixed(0)} MiB file: ${sorted.map((m) => m.toFixed(0)).join(', ')} ms (max ${sorted.at(-1)!.toFixed(0)}; target < 1000)`);
    if (sorted.at(-1)! >= 1000) process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
