import { Inject, Injectable } from '@nestjs/common';
import {
  AppError, AuthContext, EnqueueImportInput, ErrorCode, ErrorIssue, ImportJob, ImportLimits, ImportPreviewView, ImportUploadUrlInput, ImportUploadView, ImportView,
  PreviewImportInput, RejectedRowsPage, RejectedRowsPageInput,
} from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import {
  checkMapping, CsvFileError, IMPORT_JOB_NAME, IMPORT_JOB_OPTIONS, importJobPriority, readHead, readHeader, nextRejectedRowsPage, rejectedRowLine, rejectedRowsHeader, suggestMapping,
  type RejectedRowsPageBounds,
} from '@dc/imports';
import { currentRequestId, type Logger } from '@dc/observability';
import { StoredFileChangedError, type ObjectStorage, type StoredFile } from '@dc/storage';
import type { Queue } from 'bullmq';
import { LookupsRepository } from '../shared/lookups.repository';
import { CONFIG, IMPORT_QUEUE, LOGGER, STORAGE } from '../tokens';
import { ImportsRepository, IssuedUpload } from './imports.repository';

/** A page of the rejected-rows file: at most 1,000 rows, and about 1 MiB of their cells (one NATS message). */
const REJECTED_PAGE: RejectedRowsPageBounds = { rows: 1_000, bytes: 1024 * 1024 };

/** The content type the upload must declare (signed into S3's URL, checked by the gateway's upload route). */
export const UPLOAD_CONTENT_TYPE = 'text/csv';

/** failureReason of an import whose job could not be added to the queue. */
export const NOT_QUEUED = 'could not be queued; enqueue the file again';

/** The 400 of a storageKey enqueue cannot accept: the message and the issue (path storageKey) say why. */
export function refusedKey(message: string): AppError {
  return AppError.validation(message, [{ path: 'storageKey', message }]);
}

/** checkMapping's issues as a 400, summarised the way the gateway's validation summarises a body's. */
function mappingRefused(issues: ErrorIssue[]): AppError {
  const summary = issues.length === 1 ? issues[0].message : `${issues.length} problems: ${issues.map((i) => i.message).join('; ')}`;
  return AppError.validation(summary.length > 500 ? `${issues.length} problems in columnMapping; see issues.` : summary, issues);
}

/**
 * Settles within `ms` or rejects: BullMQ waits, without a bound, for a connection that has never
 * been ready (Redis down since start-up); once it has been, every command is bounded by the
 * connection's commandTimeout.
 */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The portfolio load flow at api-core (docs/imports.md): issues upload places, checks an uploaded
 * file and its mapping before anything is queued, records the import and adds its job (the
 * importer, apps/importer, does the rest), and reads imports back. Every portfolio is reached
 * through the caller's key, like the debtor batch's.
 */
@Injectable()
export class ImportsService {
  constructor(
    private readonly imports: ImportsRepository,
    private readonly lookups: LookupsRepository,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(IMPORT_QUEUE) private readonly queue: Queue<ImportJob>,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** A new storage key of the portfolio, with where and how to upload the file; both valid IMPORT_UPLOAD_TTL_SECONDS. */
  async uploadUrl(auth: AuthContext, { portfolioId, body }: ImportUploadUrlInput): Promise<ImportUploadView> {
    if (!(await this.lookups.findReachablePortfolio(auth, portfolioId))) throw AppError.notFound('portfolio');
    const expiresAt = new Date(Date.now() + this.config.imports.uploadTtlSeconds * 1000);
    const upload = { portfolioId, apiKeyId: auth.apiKeyId, fileName: body.fileName ?? null, expiresAt };
    const storageKey = await this.imports.insertUpload(upload);
    const maxBytes = this.config.imports.maxFileBytes;
    const target = await this.storage.uploadTarget(storageKey, { expiresAt, contentType: UPLOAD_CONTENT_TYPE, maxBytes });
    return {
      storageKey,
      uploadUrl: target.url,
      method: target.method,
      headers: target.headers,
      fields: target.fields,
      expiresAt: expiresAt.toISOString(),
      maxBytes,
    };
  }

  /**
   * Checks the key, the file and the mapping (400 naming what is wrong, nothing recorded), then
   * records the queued import and, once committed, adds its job. When the job cannot be added the
   * import is marked failed and the answer is 503. A key may be enqueued again while it is valid
   * (spec: without Idempotency-Key every request enqueues a new import), e.g. in another mode.
   */
  async enqueue(auth: AuthContext, { portfolioId, body }: EnqueueImportInput): Promise<ImportView> {
    const { storageKey } = body;
    const upload = await this.issuedUpload(auth, portfolioId, storageKey);
    const header = await this.readHeader(storageKey);
    const issues = checkMapping(body.columnMapping, header.columns);
    if (issues.length) throw mappingRefused(issues);

    const created = await this.imports.insertImport({
      portfolioId,
      uploadId: upload.id,
      storageKey,
      columnMapping: body.columnMapping,
      conflictResolution: body.conflictResolution ?? 'add',
      dryRun: body.dryRun ?? false,
      delimiter: header.delimiter,
      header: header.columns,
      file: header.file,
    });

    await this.addJob(created.id, auth.organizationId);
    return created;
  }

  /**
   * Operator cancel: the import ends failed, reason `cancelled`, and its job leaves the queue unless
   * an importer is running it (that run stops at its next chunk). 409 when it had already ended.
   */
  async cancel(id: string): Promise<ImportView> {
    const result = await this.imports.cancel(id);
    if (!result) throw AppError.notFound('import');
    if (!result.cancelled) {
      throw new AppError(ErrorCode.InvalidStateTransition, `The import ${id} already ended (${result.view.status}); only a queued or processing import can be cancelled.`);
    }
    // An active job is locked by its importer and stays: its run ends at the next chunk. A job left
    // behind only finds the import ended ('skipped').
    await this.queue.remove(id).catch((err: unknown) => this.logger.warn({ importId: id, err: (err as Error).message }, 'cancelled import job not removed'));
    this.logger.info({ importId: id }, 'import cancelled by the operator');
    return result.view;
  }

  /**
   * What the start of an uploaded file says, and the mapping suggested for it, with the checks of
   * enqueue (the same 400s); nothing is recorded and the key stays as it was. Reads the header and
   * ImportLimits.previewRows records, whatever the file's size.
   */
  async preview(auth: AuthContext, { portfolioId, body }: PreviewImportInput): Promise<ImportPreviewView> {
    const upload = await this.issuedUpload(auth, portfolioId, body.storageKey);
    const header = await this.readHeader(body.storageKey);
    const [head, previousMapping] = await Promise.all([
      this.openChecked(body.storageKey, header.file).then((stream) =>
        readHead(stream, header.delimiter, { rows: ImportLimits.previewRows, fileBytes: header.file.sizeBytes })),
      this.imports.lastMapping(portfolioId),
    ]);
    const suggestedMapping = suggestMapping({ header: header.columns, sampleRows: head.sampleRows, previousMapping });
    const warnings: string[] = [];
    if (head.invalidUtf8) {
      warnings.push('the start of the file is not valid UTF-8 (a spreadsheet\'s CSV export in Windows-1252 or Latin-1?): save it as "CSV UTF-8"; rows with such bytes are refused');
    }
    if (head.unreadable) warnings.push(head.unreadable);
    head.sampleRows.forEach((row, i) => {
      if (row.length !== header.columns.length) warnings.push(`row ${i + 2} has ${row.length} fields; the header has ${header.columns.length}: it would be refused`);
    });
    const mapped = suggestedMapping.filter((m) => m.targetField !== null).map(({ sourceColumn, targetField }) => ({ sourceColumn, targetField }));
    for (const issue of checkMapping(mapped, header.columns)) warnings.push(`the suggested mapping is not complete: ${issue.message}`);
    return {
      storageKey: body.storageKey,
      delimiter: header.delimiter,
      encoding: 'utf-8',
      bom: head.bom,
      header: header.columns,
      sampleRows: head.sampleRows,
      rowCount: head.rowCount,
      rowCountEstimated: head.rowCountEstimated,
      fileBytes: header.file.sizeBytes,
      suggestedMapping,
      warnings,
      expiresAt: upload.expiresAt.toISOString(),
    };
  }

  /**
   * A page of the import's rejected-rows file (docs/imports.md): the header line first, then the
   * refused rows after `afterRow`, each as it was in the file with why. The gateway streams the pages;
   * or, asked for the first page of an import that completed, the file the importer stored then
   * (its rows stay in the table too, so a reading begun before the completion ends as it began).
   */
  async rejectedRows(auth: AuthContext, { id, afterRow }: RejectedRowsPageInput): Promise<RejectedRowsPage> {
    const dialect = await this.imports.findReachableDialect(auth, id);
    if (!dialect) throw AppError.notFound('import');
    if (afterRow === 0 && dialect.file) return { text: '', nextAfterRow: null, file: dialect.file };
    const { rows, fetched } = await this.imports.rejectedRows(id, afterRow, REJECTED_PAGE);
    let text = afterRow === 0 ? rejectedRowsHeader(dialect.header, dialect.delimiter) : '';
    for (const row of rows) text += rejectedRowLine(row, dialect.header, dialect.delimiter);
    return { text, nextAfterRow: nextRejectedRowsPage(rows, fetched, REJECTED_PAGE), file: null };
  }

  async get(auth: AuthContext, id: string): Promise<ImportView> {
    const found = await this.imports.findReachable(auth, id);
    if (!found) throw AppError.notFound('import');
    return found;
  }

  /** The import's job (job id = import id); when it cannot be added, the import fails and the caller hears 503. */
  private async addJob(importId: string, organizationId: string): Promise<void> {
    // The importer's log lines about this import carry the request id that created it.
    const requestId = currentRequestId();
    const job: ImportJob = requestId ? { importId, organizationId, requestId } : { importId, organizationId };
    try {
      // Its place among the organization's unfinished imports: another tenant's backlog never runs first (docs/adr/0043).
      const priority = importJobPriority(await this.imports.placeInOrganization(importId));
      await within(this.queue.add(IMPORT_JOB_NAME, job, { ...IMPORT_JOB_OPTIONS, jobId: importId, priority }), this.config.redis.commandTimeoutMs * 2);
    } catch (err) {
      this.logger.error({ err: err instanceof Error ? err.message : String(err), importId }, 'import job could not be queued');
      await this.imports.failQueued(importId, NOT_QUEUED);
      throw new AppError(ErrorCode.ServiceUnavailable, `The import ${importId} ${NOT_QUEUED} (the job queue is unavailable).`, undefined, 5);
    }
  }

  /** The upload behind `storageKey`, issued for this reachable portfolio and not expired (404 or 400 otherwise). */
  private async issuedUpload(auth: AuthContext, portfolioId: string, storageKey: string): Promise<IssuedUpload> {
    if (!(await this.lookups.findReachablePortfolio(auth, portfolioId))) throw AppError.notFound('portfolio');
    const upload = await this.imports.findUpload(portfolioId, storageKey);
    if (!upload) throw refusedKey('storageKey was not issued by upload-url for this portfolio');
    if (upload.expiresAt.getTime() <= Date.now()) {
      throw refusedKey(`storageKey expired at ${upload.expiresAt.toISOString()}: request a new upload-url and upload the file again`);
    }
    return upload;
  }

  /** The file as checked (storage refuses one replaced since: a 400 naming storageKey). */
  private async openChecked(storageKey: string, file: StoredFile) {
    try {
      return await this.storage.openRead(storageKey, file);
    } catch (err) {
      if (err instanceof StoredFileChangedError) throw refusedKey('the file under this storageKey is being replaced by another upload: send the request again once the upload has ended');
      throw err;
    }
  }

  /**
   * The uploaded file's header, after the size check, and the file as checked (the importer reads
   * exactly it); every refusal names storageKey.
   */
  private async readHeader(storageKey: string): Promise<{ columns: string[]; delimiter: string; file: StoredFile }> {
    const file = await this.storage.stat(storageKey);
    if (!file) throw refusedKey('no file has been uploaded under this storageKey: PUT the file to its uploadUrl first');
    const max = this.config.imports.maxFileBytes;
    if (file.sizeBytes > max) throw refusedKey(`the file uploaded under this storageKey has ${file.sizeBytes} bytes, more than the limit of ${max} bytes`);
    const stream = await this.openChecked(storageKey, file);
    try {
      return { ...(await readHeader(stream)), file };
    } catch (err) {
      if (err instanceof CsvFileError) throw refusedKey(`the file uploaded under this storageKey cannot be read as CSV: ${err.message}`);
      throw err;
    }
  }
}
