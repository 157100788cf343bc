import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import { Database, type WritePositions } from '@dc/database';
import type { Logger } from '@dc/observability';
import type { ObjectStorage } from '@dc/storage';
import {
  ImportCancelled, ImportFileError, ImportInterrupted, isDataError, isFileError, NothingToReplaceError, OrganizationBusy,
} from './import-errors';
import { RejectedRowsFile } from './finishing/rejected-rows-file';
import { CONFIG, LOGGER, STORAGE, WRITE_POSITIONS } from './importer.tokens';
import { ImportRecord, ImportsRepository } from './imports.repository';
import { ImportMerger } from './merging/import-merger';
import { ReadMergeProgress } from './read-merge-progress';
import { FileReader } from './reading/file-reader';
import { ImportFairness } from './scheduling/import-fairness';
import type { Session } from './sql-session';

/** How a run is asked to stop: the importer stopping (`signal`), or its job's place to yield at (`priority`, docs/adr/0043). */
export interface RunOptions {
  signal: AbortSignal;
  /** The job's priority (its place in its organization); absent: the run never yields. */
  priority?: number;
}

/** How many staged chunks the reader may keep ahead of the merger (ReadMergeProgress). */
const READ_LOOKAHEAD_CHUNKS = 2;

/** A run that did not end its import, for an infrastructure reason: tried again later, `attempts` so far. */
export class ImportAttemptFailed extends Error {
  constructor(
    override readonly cause: Error,
    readonly attempts: number,
  ) {
    super(cause.message);
    this.name = 'ImportAttemptFailed';
  }
}

/** Another process holds the import's lock (it is running there): the job is postponed. */
export class ImportBusy extends Error {
  constructor() {
    super('the import is being processed by another importer');
    this.name = 'ImportBusy';
  }
}

/**
 * One run of one import (docs/adr/0022), from wherever its phase and checkpoints say:
 * reading (merging alongside, except in replace) → merging → finishing → done. The run holds the
 * import's session-level advisory lock, so one import is never processed twice at the same time.
 * A file that cannot be processed (including a value Postgres refuses) ends the import `failed`; any
 * other error is thrown, and the job runs again later from the checkpoints — at most
 * IMPORT_MAX_ATTEMPTS runs that did not end it (crashes included; a clean stop does not count),
 * after which it ends `failed` with the last error (docs/adr/0043).
 */
@Injectable()
export class RunImportUseCase {
  constructor(
    private readonly database: Database,
    private readonly imports: ImportsRepository,
    private readonly reader: FileReader,
    private readonly merger: ImportMerger,
    private readonly fairness: ImportFairness,
    private readonly rejectedRows: RejectedRowsFile,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(WRITE_POSITIONS) private readonly writePositions: WritePositions | null,
  ) {}

  /** How the run ended: the import completed, failed (its file), or had already ended (`skipped`). */
  async execute(importId: string, { signal, priority }: RunOptions): Promise<'completed' | 'failed' | 'skipped'> {
    const control = await this.openSession();
    try {
      // The organization's share first: a session that holds an import's lock always holds a slot.
      const queued = await this.imports.load(control, importId);
      if (!queued || queued.status === 'completed' || queued.status === 'failed') return 'skipped';
      if (!(await this.imports.tryOrganizationSlot(control, queued.organizationId, this.config.imports.maxRunningPerOrganization))) throw new OrganizationBusy();
      if (!(await this.imports.tryLock(control, importId))) throw new ImportBusy();
      const imp = await this.imports.load(control, importId);
      if (!imp || imp.status === 'completed' || imp.status === 'failed') return 'skipped';
      if (imp.attempts >= this.config.imports.maxAttempts) {
        await this.fail(control, imp, new ImportFileError(attemptsExhausted(imp.attempts, imp.lastError)));
        return 'failed';
      }
      await this.imports.markProcessing(control, importId);
      try {
        const shouldYield = priority === undefined ? () => Promise.resolve(false) : () => this.fairness.anotherOrganizationWaits(imp.organizationId, priority);
        await this.run(control, await this.imports.alignStaging(control, imp), signal, shouldYield);
        return 'completed';
      } catch (err) {
        if (err instanceof ImportCancelled) {
          await this.cancelled(control, imp);
          return 'failed';
        }
        if (isFileError(err) || isDataError(err)) {
          await this.fail(control, imp, isDataError(err) ? new ImportFileError(`a value of the file cannot be stored: ${err.message}`) : err);
          return 'failed';
        }
        const clean = err instanceof ImportInterrupted;
        await this.imports.endAttempt(control, importId, clean ? null : (err as Error).message).catch(() => undefined);
        if (clean) throw err;
        throw new ImportAttemptFailed(err as Error, imp.attempts + 1);
      }
    } finally {
      // Ending the session releases the import's lock.
      await control.end().catch(() => undefined);
    }
  }

  /** The job's priority when it yields: its place in its organization now. */
  async placeOf(importId: string): Promise<number> {
    const control = await this.openSession();
    try {
      return await this.imports.placeInOrganization(control, importId);
    } finally {
      await control.end().catch(() => undefined);
    }
  }

  private async run(control: Session, imp: ImportRecord, signal: AbortSignal, shouldYield: () => Promise<boolean>): Promise<void> {
    const started = performance.now();
    this.logger.info({ importId: imp.id, mode: imp.mode, phase: imp.phase, checkpointRow: imp.checkpointRow, mergedRow: imp.mergedRow }, 'import started');
    let reconciled = 0;
    if (imp.phase === 'reading' || imp.phase === 'merging') {
      await this.readAndMerge(control, imp, signal, shouldYield);
      // A dry run and replace end their merge in phase finishing, reconcile's marking counted.
      if (imp.mode !== 'replace' && !imp.dryRun) reconciled = await this.imports.finishMerge(control, imp, this.config.imports.statementTimeoutMs);
    }
    const finished = (await this.imports.load(control, imp.id)) ?? imp;
    if (!imp.dryRun && finished.written >= this.config.imports.analyzeAfterRows) await this.imports.analyze(control);
    // Before the completion: a client that sees the import completed finds the file stored.
    await this.rejectedRows.store(control, imp);
    await this.imports.deleteStaging(control, imp.id);
    const done = await this.imports.complete(imp.id);
    // Before the job ends: the key that polls for the end reads its rows wherever it reads (docs/adr/0050).
    if (done.apiKeyId && this.writePositions) {
      await this.writePositions.recordWrite(done.apiKeyId, done.lsn).catch((err: Error) => this.logger.warn({ err: err.message, importId: imp.id }, 'write position of the completed import not recorded'));
    }
    await this.releaseFile(control, imp);
    this.logger.info(
      { importId: imp.id, mode: imp.mode, dryRun: imp.dryRun, rows: finished.checkpointRow - 1, written: finished.written, reconciled, ms: Math.round(performance.now() - started) },
      'import completed',
    );
  }

  /**
   * Reading and merging run side by side (the merger takes each chunk once it is staged), so the
   * database's merge work overlaps the parsing; replace reads everything first, then swaps in one
   * transaction. A dry run merges as its mode does, in one transaction it rolls back (docs/adr/0049),
   * then records its counters. The first failure of either side stops the other after its current chunk.
   */
  private async readAndMerge(control: Session, imp: ImportRecord, signal: AbortSignal, shouldYield: () => Promise<boolean>): Promise<void> {
    const { chunkRows } = this.config.imports;
    const reading = imp.phase === 'reading';
    // Replace merges nothing before the whole file is staged: its reader runs unpaced.
    const lookahead = imp.mode === 'replace' ? Number.POSITIVE_INFINITY : READ_LOOKAHEAD_CHUNKS;
    // A dry run merges from the first row each time it runs: its writes of an earlier run were rolled back.
    const progress = new ReadMergeProgress(imp.checkpointRow, !reading, imp.dryRun ? 0 : imp.mergedRow, chunkRows, lookahead);
    const stop = () => progress.halt();
    signal.addEventListener('abort', stop);
    if (signal.aborted) stop();
    const copy = reading ? await this.openSession() : undefined;
    // Replace and dry runs record their rejections beside a merge that may roll back.
    const rejections = imp.mode === 'replace' || imp.dryRun ? await this.openSession() : undefined;
    try {
      const guard = (task: Promise<void>) => task.catch((err: unknown) => (progress.halt(), Promise.reject(err)));
      const read = copy ? guard(this.reader.read(copy, imp, { chunkRows, maxRows: this.config.imports.maxRows, progress })) : Promise.resolve();
      if (imp.dryRun && rejections) {
        if (imp.mode === 'replace') await read;
        await this.settle([read, guard(this.merger.dryRun(control, imp, progress, rejections))]);
        return;
      }
      if (imp.mode === 'replace' && rejections) {
        await read;
        await this.merger.replaceAll(control, imp, progress.staged, progress, rejections);
        return;
      }
      await this.settle([read, guard(this.merger.mergeStaged(control, imp, progress, shouldYield))]);
    } finally {
      signal.removeEventListener('abort', stop);
      await copy?.end().catch(() => undefined);
      await rejections?.end().catch(() => undefined);
    }
  }

  /** Waits for the reader and the merger; throws the reason that explains the others. */
  private async settle(tasks: Promise<void>[]): Promise<void> {
    const outcomes = await Promise.allSettled(tasks);
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    // The reason that explains the others: the file's fault, then a real failure, then the stop.
    const first = failures.find(isFileError) ?? failures.find((e) => !(e instanceof ImportInterrupted)) ?? failures[0];
    if (first) throw first;
  }

  /** Cancelled by an operator: its row already says so; its staging rows and file go as for any end. */
  private async cancelled(control: Session, imp: ImportRecord): Promise<void> {
    await this.imports.deleteStaging(control, imp.id);
    this.logger.info({ importId: imp.id }, 'import cancelled');
    await this.releaseFile(control, imp);
  }

  private async fail(control: Session, imp: ImportRecord, err: ImportFileError | Error): Promise<void> {
    const details = err instanceof NothingToReplaceError ? { errorDetails: err.errorDetails, errors: err.errors } : undefined;
    await this.imports.fail(control, imp.id, err.message, details);
    this.logger.info({ importId: imp.id, reason: err.message }, 'import failed');
    await this.releaseFile(control, imp);
  }

  /**
   * A key stays usable until its upload expires (docs/imports.md: the same file may be loaded
   * again), so the file stays too; an import that ends after the expiry removes it, and the
   * UploadSweeper removes the others once they expire. A failure here leaves the file to the sweeper.
   */
  private async releaseFile(control: Session, imp: ImportRecord): Promise<void> {
    try {
      if (await this.imports.fileReleasable(control, imp.id)) await this.storage.delete(imp.storageKey);
    } catch (err) {
      this.logger.warn({ importId: imp.id, err: (err as Error).message }, 'stored file not deleted; the sweeper will');
    }
  }

  /**
   * An import's session: its statements may run as long as a chunk of a replace needs. Server-side
   * TCP keepalives: if this host vanishes (no FIN, unlike a killed process), Postgres drops the
   * session — and the import's lock with it — within about a minute instead of the OS's two hours,
   * so another importer can resume the import.
   */
  private async openSession(): Promise<Session> {
    const timeout = this.config.imports.statementTimeoutMs;
    const session = await this.database.openSession({ statementTimeoutMs: timeout, lockTimeoutMs: timeout, applicationName: 'importer' });
    try {
      await session.query('SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3');
    } catch (err) {
      await session.end().catch(() => undefined);
      throw err;
    }
    return session;
  }
}

/** failureReason of an import whose runs ran out. */
function attemptsExhausted(attempts: number, lastError: string | null): string {
  const last = lastError ?? 'the importer stopped while processing it (a crash, or out of memory)';
  return `stopped after ${attempts} attempts that did not finish it (IMPORT_MAX_ATTEMPTS); the last: ${last}`;
}
