import { ApiError } from './api-error';
import type { DcClient } from './client';
import { abortableSleep } from './retry';
import { plainFetchOf } from './transport';
import type { components } from './types';

/**
 * The portfolio load flow (docs/imports.md; guide "Loading files"): upload-url and the upload, the
 * preview, the enqueue (a dry run or the real load) polled until it ends, and the rows it refused
 * as a CSV to fix and load again.
 *
 * ```ts
 * const imports = importsOf(dc);
 * const storageKey = await imports.upload(portfolioId, await openAsBlob('march.csv'), { fileName: 'march.csv' });
 * const preview = await imports.preview(portfolioId, storageKey);
 * const view = await imports.run(portfolioId, { storageKey, columnMapping, conflictResolution: 'update' });
 * ```
 */

export type ImportView = components['schemas']['ImportView'];
export type ImportPreviewView = components['schemas']['ImportPreviewView'];
export type ImportUploadView = components['schemas']['ImportUploadView'];
export type ImportMode = components['schemas']['ImportMode'];
export type ImportStatus = components['schemas']['ImportStatus'];
export type ImportField = components['schemas']['ImportField'];
/** One entry of `columnMapping`: a header name of the file and its canonical field (null: ignored). */
export type ColumnMapping = components['schemas']['ColumnMappingDto'];

/** The bytes of a file to upload. A large file: `await fs.openAsBlob(path)`, which reads from disk as it is sent. */
export type UploadBody = Blob | Uint8Array | string;

export interface UploadOptions {
  /** Kept with the upload for operators, and the multipart file name (default `upload.csv`). */
  fileName?: string;
  signal?: AbortSignal;
}

export interface RunImportRequest {
  storageKey: string;
  columnMapping: ColumnMapping[];
  /** Default `add`. */
  conflictResolution?: ImportMode;
  /** Run the whole load and write nothing: the import ends with the counters a real run would have. */
  dryRun?: boolean;
  /**
   * Sent as Idempotency-Key: running again with the same key and body within 24 h answers the same
   * import (and polls it) instead of enqueueing another. Default: a fresh key per call.
   */
  idempotencyKey?: string;
}

export interface WaitOptions {
  /** Between two GET /v1/imports/{id} (default 2,000 ms). */
  pollIntervalMs?: number;
  /** Give up waiting after this long (default: no limit): ImportWaitTimeoutError; the import goes on. */
  timeoutMs?: number;
  /** Stops the polling (and the request in flight); the import goes on. */
  signal?: AbortSignal;
  /** Every view seen, the enqueue's answer first: to show the counters move. */
  onProgress?: (view: ImportView) => void;
}

export const DEFAULT_IMPORT_POLL_INTERVAL_MS = 2_000;

/** Thrown by `run` and `wait` once `timeoutMs` has passed: the import is still running; wait for it again by id. */
export class ImportWaitTimeoutError extends Error {
  override readonly name = 'ImportWaitTimeoutError';
  constructor(readonly lastView: ImportView, readonly timeoutMs: number) {
    super(`import ${lastView.id} is still ${lastView.status} after ${timeoutMs} ms (it goes on: wait for it again by id)`);
  }
}

export interface Imports {
  /**
   * Asks for an upload URL, then sends the whole file to it as the answer says — a PUT with exactly
   * its `headers`, or a multipart POST of its `fields` in order then the file as `file` — with no
   * API key and no automatic retry. Resolves with the storageKey to preview and enqueue (valid until
   * the upload's `expiresAt`, 1 h by default); throws ApiError when either step is refused.
   */
  upload(portfolioId: string, body: UploadBody, options?: UploadOptions): Promise<string>;
  /** How the file will be read and a suggested columnMapping; records nothing (the key stays loadable). */
  preview(portfolioId: string, storageKey: string, options?: { signal?: AbortSignal }): Promise<ImportPreviewView>;
  /**
   * Enqueues the load (`dryRun: true`: writes nothing) and polls it until `completed` or `failed`,
   * resolving with the last view either way: a `failed` import is not thrown, read `failureReason`.
   */
  run(portfolioId: string, request: RunImportRequest, options?: WaitOptions): Promise<ImportView>;
  /** Polls an import already enqueued (after a timeout, or a restart of your process) until it ends. */
  wait(importId: string, options?: WaitOptions): Promise<ImportView>;
  /**
   * GET /v1/imports/{id}/rejected-rows: the CSV of the refused rows as a web stream of its bytes,
   * exactly as sent (UTF-8 with BOM; the file's header plus error_row, error_column, error_message).
   * Throws ApiError when the answer is not 2xx (404 `not_found`: no such import within the key's reach).
   */
  rejectedRows(importId: string, options?: { signal?: AbortSignal }): Promise<ReadableStream<Uint8Array>>;
}

/** The load flow of a client: `importsOf(dc).run(…)`. */
export function importsOf(dc: DcClient): Imports {
  const plainFetch = plainFetchOf(dc);

  const getImport = async (id: string, signal: AbortSignal | undefined): Promise<ImportView> =>
    (await dc.get('/v1/imports/{id}', { params: { path: { id } }, signal })).data;

  async function follow(first: ImportView, options: WaitOptions): Promise<ImportView> {
    const interval = options.pollIntervalMs ?? DEFAULT_IMPORT_POLL_INTERVAL_MS;
    const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
    let view = first;
    for (;;) {
      options.onProgress?.(view);
      if (isImportFinished(view)) return view;
      const left = deadline - Date.now();
      if (left <= 0) throw new ImportWaitTimeoutError(view, options.timeoutMs ?? 0);
      await abortableSleep(Math.min(interval, left), options.signal);
      view = await getImport(view.id, options.signal);
    }
  }

  return {
    async upload(portfolioId, body, options = {}) {
      const { data: target } = await dc.post('/v1/portfolios/{id}/imports/upload-url', {
        params: { path: { id: portfolioId } },
        body: options.fileName === undefined ? {} : { fileName: options.fileName },
        signal: options.signal,
      });
      const request = uploadRequest(target, body, options);
      const response = await plainFetch(request);
      if (!response.ok) throw ApiError.fromResponse(response, await readBody(response), request);
      await response.body?.cancel().catch(() => undefined);
      return target.storageKey;
    },

    async preview(portfolioId, storageKey, options = {}) {
      const { data } = await dc.post('/v1/portfolios/{id}/imports/preview', {
        params: { path: { id: portfolioId } },
        body: { storageKey },
        signal: options.signal,
      });
      return data;
    },

    async run(portfolioId, request, options = {}) {
      const { idempotencyKey, storageKey, columnMapping, conflictResolution, dryRun } = request;
      const { data: queued } = await dc.post('/v1/portfolios/{id}/imports', {
        params: { path: { id: portfolioId } },
        body: {
          storageKey,
          columnMapping,
          ...(conflictResolution === undefined ? {} : { conflictResolution }),
          ...(dryRun === undefined ? {} : { dryRun }),
        },
        headers: idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey },
        signal: options.signal,
      });
      return follow(queued, options);
    },

    async wait(importId, options = {}) {
      return follow(await getImport(importId, options.signal), options);
    },

    async rejectedRows(importId, options = {}) {
      const { data, error, response } = await dc.api.GET('/v1/imports/{id}/rejected-rows', {
        params: { path: { id: importId } },
        parseAs: 'stream',
        signal: options.signal,
      });
      if (!response.ok) throw ApiError.fromResponse(response, error);
      // openapi-fetch gives no body for an empty answer (Content-Length: 0).
      return data ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    },
  };
}

/** Whether the import has ended (`completed` or `failed`): its view no longer changes. */
export function isImportFinished(view: Pick<ImportView, 'status'>): boolean {
  return view.status === 'completed' || view.status === 'failed';
}

/** The upload as upload-url described it: PUT with its headers, or multipart POST of its fields in order, then `file`. */
function uploadRequest(target: ImportUploadView, body: UploadBody, options: UploadOptions): Request {
  if (target.method === 'POST') {
    const form = new FormData();
    for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
    form.append('file', body instanceof Blob ? body : new Blob([body], { type: 'text/csv' }), options.fileName ?? 'upload.csv');
    return new Request(target.uploadUrl, { method: 'POST', headers: target.headers, body: form, signal: options.signal });
  }
  return new Request(target.uploadUrl, { method: target.method, headers: target.headers, body, signal: options.signal });
}

/** The body of a refused upload: the platform's JSON envelope, or S3's XML as text. */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
