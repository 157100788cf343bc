import type { ColumnMappingDto, EnqueueImportDto, ImportPreviewView, ImportUploadView, ImportView } from '@dc/contracts';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { once } from 'node:events';
import type { JsonResponse } from './operator-client';

/**
 * The portfolio load flow as a client drives it (docs/imports.md): upload-url, one upload of the file
 * exactly as answered (method, URL, headers, form fields), enqueue, poll GET /v1/imports/{id}.
 * `publicUrl` is the gateway's base (`stack.publicUrl`); routes are under /public/v1.
 */

async function call<T = any>(publicUrl: string, apiKey: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse<T>> {
  const response = await fetch(`${publicUrl}/public/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** The error envelope (spec: Errors). */
export interface ApiError {
  code: string;
  message: string;
  requestId: string;
  issues?: { path: string; message: string }[];
}

/** A public API answer: `data` on success, `error` otherwise (typed as both so tests read either without narrowing). */
export interface ApiAnswer<T> {
  data: T;
  error: ApiError;
}

function expectStatus<T>(what: string, res: JsonResponse<T>, status: number): T {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** POST /v1/portfolios/{id}/imports/upload-url, as answered. */
export function requestUploadUrl(publicUrl: string, apiKey: string, portfolioId: string, body: { fileName?: string } = {}): Promise<JsonResponse<ApiAnswer<ImportUploadView>>> {
  return call(publicUrl, apiKey, 'POST', `/portfolios/${portfolioId}/imports/upload-url`, body);
}

/** The bytes of an upload: in memory, or a file streamed from disk (never read whole). */
export type UploadBody = string | Buffer | { path: string };

/**
 * Sends the file to an upload target exactly as upload-url described it and answers the status and
 * body text: a PUT of the file with `headers` (and Content-Length, the one header a client always
 * adds), or a multipart/form-data POST of `fields` then the file as `file`. Streams files from disk.
 */
export async function sendUpload(target: Pick<ImportUploadView, 'uploadUrl' | 'method' | 'headers' | 'fields'>, body: UploadBody): Promise<{ status: number; body: string }> {
  if (target.method === 'POST') {
    const form = new FormData();
    for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
    form.append('file', typeof body === 'string' || Buffer.isBuffer(body) ? new Blob([body]) : await openAsBlob(body.path), 'upload.csv');
    const response = await fetch(target.uploadUrl, { method: 'POST', headers: target.headers, body: form });
    return { status: response.status, body: await response.text() };
  }
  const url = new URL(target.uploadUrl);
  const length = typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : (await stat(body.path)).size;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method: target.method, headers: { ...target.headers, 'content-length': String(length) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else createReadStream(body.path).on('error', reject).pipe(req);
  });
}

/** upload-url (201) then the upload (PUT 200, or POST 204 as S3 answers it); answers the storageKey to enqueue. */
export async function uploadCsv(publicUrl: string, apiKey: string, portfolioId: string, body: UploadBody, fileName?: string): Promise<string> {
  const target = expectStatus('upload-url', await requestUploadUrl(publicUrl, apiKey, portfolioId, fileName ? { fileName } : {}), 201).data;
  const sent = await sendUpload(target, body);
  if (sent.status !== (target.method === 'PUT' ? 200 : 204)) throw new Error(`upload ${target.method} ${target.uploadUrl}: got ${sent.status}: ${sent.body}`);
  return target.storageKey;
}

/** POST /v1/portfolios/{id}/imports, as answered (202 with the queued import, or an error). */
export function enqueueImport(
  publicUrl: string,
  apiKey: string,
  portfolioId: string,
  body: EnqueueImportDto | Record<string, unknown>,
  options: { idempotencyKey?: string } = {},
): Promise<JsonResponse<ApiAnswer<ImportView>>> {
  const headers: Record<string, string> = options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey };
  return call(publicUrl, apiKey, 'POST', `/portfolios/${portfolioId}/imports`, body, headers);
}

/** POST /v1/portfolios/{id}/imports/preview, as answered. */
export function previewImport(publicUrl: string, apiKey: string, portfolioId: string, body: { storageKey: string } | Record<string, unknown>): Promise<JsonResponse<ApiAnswer<ImportPreviewView>>> {
  return call(publicUrl, apiKey, 'POST', `/portfolios/${portfolioId}/imports/preview`, body);
}

/**
 * GET /v1/imports/{id}/rejected-rows: the status, headers and the body as text (the CSV, or an error
 * envelope), its byte order mark kept (Response.text() would drop it).
 */
export async function getRejectedRows(publicUrl: string, apiKey: string, importId: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${publicUrl}/public/v1/imports/${importId}/rejected-rows`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, headers: res.headers, text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer()) };
}

/** GET /v1/imports/{id}, as answered. */
export function getImport(publicUrl: string, apiKey: string, importId: string): Promise<JsonResponse<ApiAnswer<ImportView>>> {
  return call(publicUrl, apiKey, 'GET', `/imports/${importId}`);
}

/**
 * Polls GET /v1/imports/{id} every `intervalMs` until `predicate` holds (default: completed or
 * failed); every view seen is passed to `onView` (to watch counters move). Throws with the last view
 * after `timeoutMs`.
 */
export async function waitForImport(
  publicUrl: string,
  apiKey: string,
  importId: string,
  predicate: (view: ImportView) => boolean = (v) => v.status === 'completed' || v.status === 'failed',
  timeoutMs = 30_000,
  options: { intervalMs?: number; onView?: (view: ImportView) => void } = {},
): Promise<ImportView> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const res = await getImport(publicUrl, apiKey, importId);
    last = res.body;
    if (res.status === 200) {
      const view = res.body.data;
      options.onView?.(view);
      if (predicate(view)) return view;
    } else if (res.status !== 429) {
      throw new Error(`GET /v1/imports/${importId}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    if (Date.now() > deadline) throw new Error(`import ${importId}: condition not met within ${timeoutMs} ms; last answer ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 100));
  }
}

/** A mapping naming every header column as the canonical field of the same name (a file written with canonical headers). */
export function identityMapping(header: readonly string[]): ColumnMappingDto[] {
  return header.map((h) => ({ sourceColumn: h, targetField: h as ColumnMappingDto['targetField'] }));
}

/** Quotes a CSV field when it needs it (delimiter, quote, CR or LF), doubling inner quotes. */
export function csvField(value: string, delimiter = ','): string {
  return value.includes(delimiter) || /["\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One CSV line (no line end). */
export function csvLine(values: readonly string[], delimiter = ','): string {
  return values.map((v) => csvField(v, delimiter)).join(delimiter);
}

/** The header of generated load files: canonical names, one debtor with one debt and one phone a row. */
export const GENERATED_HEADER = [
  'debtor_external_id',
  'identity_first_name',
  'identity_last_name',
  'identity_document_type',
  'identity_document_number',
  'phone_1',
  'email_1',
  'debt_external_id',
  'debt_total_amount',
  'debt_paid_amount',
  'debt_currency',
  'debt_due_date',
] as const;

export interface GeneratedRowOptions {
  /** Prefix of every id and document number, so files of one run never collide. */
  prefix: string;
  /** Whether rows carry email_1 (default true); the benchmark's rows are one debtor, one debt, one phone. */
  email?: boolean;
  /** 0-based data row indexes whose phone is invalid (the row is refused with a phone error). */
  badPhoneRows?: ReadonlySet<number>;
  /** Total amount of row i (default 1000 + i % 500). */
  amount?: (i: number) => string;
  /** Paid amount of row i (default 0). */
  paid?: (i: number) => string;
  /** Whether rows carry a payment (payment_external_id `<prefix>-p<n>`, amount 1, a date); default false. */
  payments?: boolean;
}

const PAYMENT_COLUMNS = ['payment_external_id', 'payment_amount', 'payment_date'];

/** The header of a generated file with these options. */
export function generatedHeader(o: Pick<GeneratedRowOptions, 'email' | 'payments'> = {}): string[] {
  const header = GENERATED_HEADER.filter((h) => o.email !== false || h !== 'email_1');
  return o.payments ? [...header, ...PAYMENT_COLUMNS] : header;
}

/** Data row i (0-based; the file's row number is i + 2) of a generated load file, as fields. */
export function generatedRow(i: number, o: GeneratedRowOptions): string[] {
  const n = String(i).padStart(7, '0');
  const phone = o.badPhoneRows?.has(i) ? '12' : `+346${n.slice(-8).padStart(8, '0')}`;
  const row = [
    `${o.prefix}-c${n}`,
    'Ana',
    'García',
    'national_id',
    `${o.prefix}D${n}`,
    phone,
    `c${n}@example.com`,
    `${o.prefix}-d${n}`,
    o.amount ? o.amount(i) : String(1000 + (i % 500)),
    o.paid ? o.paid(i) : '0',
    'EUR',
    '2026-06-30',
  ];
  if (o.email === false) row.splice(GENERATED_HEADER.indexOf('email_1'), 1);
  if (o.payments) row.push(`${o.prefix}-p${n}`, '1', '2026-06-30');
  return row;
}

/** A generated load file in memory (tests: up to some tens of thousands of rows). */
export function generateCsv(rows: number, o: GeneratedRowOptions): string {
  const lines = [csvLine(generatedHeader(o))];
  for (let i = 0; i < rows; i += 1) lines.push(csvLine(generatedRow(i, o)));
  return `${lines.join('\n')}\n`;
}

/** A generated load file written to `path` as a stream (benchmarks: a million rows never sit in memory). Answers its size in bytes. */
export async function writeGeneratedCsv(path: string, rows: number, o: GeneratedRowOptions): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${csvLine(generatedHeader(o))}\n`);
  let batch: string[] = [];
  for (let i = 0; i < rows; i += 1) {
    batch.push(csvLine(generatedRow(i, o)));
    if (batch.length === 1000) {
      await write(`${batch.join('\n')}\n`);
      batch = [];
    }
  }
  if (batch.length) await write(`${batch.join('\n')}\n`);
  out.end();
  await once(out, 'finish');
  return bytes;
}
