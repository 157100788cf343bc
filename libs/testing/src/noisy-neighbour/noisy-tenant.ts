import { ImportLimits } from '@dc/contracts';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { csvLine, generateCsv, generatedHeader, generatedRow, identityMapping, sendUpload, UploadBody } from '../import-client';
import { A_UNITS_PER_MINUTE, NoisyNeighbourProfile } from './profile';
import { debtorOf } from './quiet-tenant';
import { paced, TenantApi } from './tenant-api';

export type NoisyActivity = 'imports' | 'flood' | 'scans' | 'payments';

/** Tenant A: one API key per activity (each at its own rate limit) and a portfolio for each. */
export interface NoisyTenant {
  organizationId: string;
  keys: Record<NoisyActivity, string>;
  portfolios: Record<NoisyActivity, string>;
  /** Debtors of the payments portfolio. */
  debtorIds: string[];
}

/** An import A enqueued: what its file was. */
export interface NoisyImport {
  id: string;
  kind: string;
  large: boolean;
}

const HEADER = generatedHeader({ email: false });
const FIRST_NAME = HEADER.indexOf('identity_first_name');
const row = (prefix: string, i: number, firstName?: string) => {
  const fields = generatedRow(i, { prefix, email: false });
  if (firstName !== undefined) fields[FIRST_NAME] = firstName;
  return csvLine(fields);
};

/**
 * Tenant A's load, every loop bounded in count and time and ending by itself (or at `stop()`):
 * - imports: poison files first — NUL cells (every tenth row), a record past the 1 MiB limit, a quote
 *   that never closes over `unclosedQuoteMiB`, an upload declaring one byte past IMPORT_MAX_FILE_BYTES
 *   (refused at the edge) — then `largeImports` enqueues of one `largeImportRows`-row file;
 * - an Idempotency-Key flood: the same 50-debtor batch (1 unit) with a fresh key each time;
 * - date-filter scans matching nothing (`from=9999-01-01`) over the payments and calls of a large
 *   portfolio, each walk following its cursors to the end;
 * - payments, each a `payment.registered` event to A's ten webhooks (slow, failing, hanging receivers).
 * The last three run at A_UNITS_PER_MINUTE on their own keys.
 */
export class NoisyLoad {
  readonly apis: Record<NoisyActivity, TenantApi>;
  readonly imports: NoisyImport[] = [];
  /** What the edge answered the oversized upload (before its body: 413). */
  oversizedStatus?: number;
  private stopping = false;
  private done: Promise<unknown> = Promise.resolve();
  private readonly run = randomBytes(3).toString('hex');
  private readonly files: { kind: string; body: UploadBody }[] = [];
  private readonly unclosedQuoteFile = path.join(tmpdir(), `dc-noisy-unclosed-${process.pid}-${this.run}.csv`);
  private largeFile = '';

  constructor(
    publicUrl: string,
    private readonly a: NoisyTenant,
    private readonly profile: NoisyNeighbourProfile,
    private readonly maxFileBytes: number,
  ) {
    this.apis = {
      imports: new TenantApi(publicUrl, a.keys.imports),
      flood: new TenantApi(publicUrl, a.keys.flood),
      scans: new TenantApi(publicUrl, a.keys.scans),
      payments: new TenantApi(publicUrl, a.keys.payments),
    };
  }

  /**
   * Writes A's files before any run: generating them inside the load would stall this process's
   * event loop, which B's client shares (its figures would then include the stall).
   */
  async prepare(): Promise<void> {
    const nul = [csvLine(HEADER), ...Array.from({ length: 1_000 }, (_, i) => row('a-nul', i, i % 10 === 0 ? 'Bo\u0000b' : undefined))];
    const long = [csvLine(HEADER), row('a-long', 0), row('a-long', 1, 'x'.repeat(ImportLimits.maxRecordBytes + 512 * 1024)), row('a-long', 2)];
    this.files.push(
      { kind: 'NUL cells (every 10th of 1,000 rows)', body: `${nul.join('\n')}\n` },
      { kind: 'a record of 1.5 MiB', body: `${long.join('\n')}\n` },
      { kind: `an unclosed quote over ${this.profile.unclosedQuoteMiB} MiB`, body: { path: this.unclosedQuoteFile } },
    );
    await writeUnclosedQuote(this.unclosedQuoteFile, this.profile.unclosedQuoteMiB);
    this.largeFile = generateCsv(this.profile.largeImportRows, { prefix: `a-${this.run}`, email: false });
  }

  /** Removes the files `prepare` wrote. */
  async dispose(): Promise<void> {
    await rm(this.unclosedQuoteFile, { force: true });
  }

  start(untilMs: number): void {
    const interval = 60_000 / A_UNITS_PER_MINUTE;
    const count = Math.ceil((untilMs - Date.now()) / interval) + 1;
    const stopped = () => this.stopping;
    const flood = { debtors: Array.from({ length: 50 }, (_, k) => debtorOf(`a-flood-${k}`)) };
    const scan = { walks: 0, cursor: null as string | null };
    this.done = Promise.all([
      this.importsLoop(untilMs),
      paced(interval, count, untilMs, stopped, (i) =>
        this.apis.flood.send('flood batch', 'POST', `/portfolios/${this.a.portfolios.flood}/debtors`, flood, { 'idempotency-key': `a-${this.run}-${i}` })),
      paced(interval, count, untilMs, stopped, async () => {
        const list = scan.walks % 2 === 0 ? 'payments' : 'calls';
        const query = `/${list}?portfolioId=${this.a.portfolios.scans}&from=9999-01-01&limit=100`;
        const answer = await this.apis.scans.send(`scan ${list}`, 'GET', scan.cursor ? `${query}&cursor=${encodeURIComponent(scan.cursor)}` : query);
        scan.cursor = answer.status === 200 && answer.body.pagination.hasMore ? (answer.body.pagination.nextCursor as string) : null;
        if (!scan.cursor) scan.walks += 1;
      }),
      paced(interval, count, untilMs, stopped, (i) =>
        this.apis.payments.send('payment', 'POST', '/payments', {
          portfolioId: this.a.portfolios.payments, debtorId: this.a.debtorIds[i % this.a.debtorIds.length], externalId: `a-${this.run}-p${i}`,
          amount: 10, paymentDate: '2026-11-01', method: 'card',
        })),
    ]);
  }

  /** Ends every loop after its current step. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.done;
  }

  private async importsLoop(untilMs: number): Promise<void> {
    const going = () => !this.stopping && Date.now() < untilMs;
    for (const { kind, body } of this.files) if (going()) await this.load(kind, body, 1, false);
    if (going()) {
      const target = await this.apis.imports.send('upload-url', 'POST', `/portfolios/${this.a.portfolios.imports}/imports/upload-url`, {});
      if (target.status === 201) this.oversizedStatus = await declareOnly(target.body.data, this.maxFileBytes + 1);
    }
    if (going()) await this.load(`${this.profile.largeImportRows.toLocaleString('en-US')} rows`, this.largeFile, this.profile.largeImports, true, going);
  }

  /** Uploads `body` once and enqueues it `times` times (mode add, a fresh Idempotency-Key each); `large`: part of the backlog. */
  private async load(kind: string, body: UploadBody, times: number, large: boolean, going = () => true): Promise<void> {
    const api = this.apis.imports;
    const target = await api.send('upload-url', 'POST', `/portfolios/${this.a.portfolios.imports}/imports/upload-url`, {});
    if (target.status !== 201) return;
    const put = await sendUpload(target.body.data, body);
    if (put.status !== 200) {
      api.answers.push({ kind: 'upload', sentAt: Date.now(), ms: 0, status: put.status });
      return;
    }
    for (let i = 0; i < times && going(); i += 1) {
      const queued = await api.send('enqueue', 'POST', `/portfolios/${this.a.portfolios.imports}/imports`,
        { storageKey: target.body.data.storageKey, columnMapping: identityMapping(HEADER), conflictResolution: 'add' },
        { 'idempotency-key': `a-${this.run}-import-${this.imports.length}` });
      if (queued.status === 202) this.imports.push({ id: queued.body.data.id as string, kind, large });
    }
  }
}

/** A file whose third record opens a quote that never closes, followed by `mib` MiB of text. */
async function writeUnclosedQuote(file: string, mib: number): Promise<void> {
  const out = createWriteStream(file);
  out.write(`${csvLine(HEADER)}\n${row('a-quote', 0)}\n"Never closed,`);
  const block = Buffer.alloc(1024 * 1024, 'x');
  for (let i = 0; i < mib; i += 1) if (!out.write(block)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/**
 * A PUT declaring `bytes` with `Expect: 100-continue`: answers the status the edge sent before asking
 * for the body (413 past IMPORT_MAX_FILE_BYTES), or 100 if it asked for it (then nothing is sent).
 */
function declareOnly(target: { uploadUrl: string; method: string; headers: Record<string, string> }, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(target.uploadUrl), { method: target.method, headers: { ...target.headers, 'content-length': String(bytes), expect: '100-continue' } });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('continue', () => {
      resolve(100);
      req.destroy();
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}
