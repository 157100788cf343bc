import { Inject, Injectable } from '@nestjs/common';
import { csvOptions, detectDelimiter, fieldColumns, RowRules } from '@dc/imports';
import { ImportLimits, type ImportField } from '@dc/contracts';
import { ObjectStorage, StoredFile, StoredFileChangedError, StoredFileNotFoundError } from '@dc/storage';
import { CsvError, parse } from 'csv-parse';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { ImportFileError, ImportInterrupted } from '../import-errors';
import type { ImportRecord } from '../imports.repository';
import type { ReadMergeProgress } from '../read-merge-progress';
import { STORAGE } from '../importer.tokens';
import { ImporterMetrics } from '../metrics/importer-metrics';
import type { Session } from '../sql-session';
import { stagedRowLine } from './staged-row';
import { StagingChunk, StagingRepository } from './staging.repository';

export interface ReadOptions {
  chunkRows: number;
  /** Data rows the file may have (IMPORT_MAX_ROWS). */
  maxRows: number;
  /** Told of each committed chunk; paces the reader (and stops it when halted). */
  progress: ReadMergeProgress;
}

const YIELD_EVERY = 16;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Phase reading (docs/adr/0022): streams the stored file through csv-parse (never whole in memory:
 * the parser pulls from storage as the chunks are committed), validates each record with the row
 * rules and stages it with COPY, chunk by chunk, each chunk committed with the import's
 * checkpoint. A restarted import reads the file again from the start and skips the records up to
 * its checkpoint.
 */
@Injectable()
export class FileReader {
  constructor(
    private readonly staging: StagingRepository,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    private readonly metrics: ImporterMetrics,
  ) {}

  async read(session: Session, imp: ImportRecord, options: ReadOptions): Promise<void> {
    const source = await this.open(imp.storageKey, imp.file);
    const parser = parse(csvOptions(imp.delimiter ?? (await this.delimiterOf(imp.storageKey))));
    // Errors of either end surface in the loop below; this promise only settles the pipeline.
    const piping = pipeline(source, parser).catch(() => undefined);
    let rules: RowRules | undefined;
    let columnOf: (field: ImportField) => string = (field) => field;
    let chunk: StagingChunk | undefined;
    let inChunk = 0;
    let lastRow = imp.checkpointRow;
    let record = 0;
    try {
      for await (const fields of parser as AsyncIterable<string[]>) {
        record += 1;
        if (record === 1) {
          ({ rules, columnOf } = this.header(imp, fields));
          continue;
        }
        if (record <= imp.checkpointRow || !rules) continue;
        if (record - 1 > options.maxRows) {
          throw new ImportFileError(`the file has more than ${options.maxRows} data rows, the limit: records from ${record} on were not loaded`);
        }
        chunk ??= await this.staging.begin(session);
        await chunk.add(stagedRowLine(imp.id, record, rules.check(fields), columnOf, fields));
        lastRow = record;
        inChunk += 1;
        // Parsing never returns to the event loop on its own between file reads (~350 records): let
        // the merger's replies in, so the database never waits on this process.
        if (inChunk % YIELD_EVERY === 0) {
          await yieldToEventLoop();
          // A halted run (the merger failed or yields to another organization, the importer stops)
          // stops here, not at the end of the chunk: the chunk rolls back and is read again on resume.
          // Finishing it held the importer up to a chunk's reading longer (noisy-neighbour: B's next
          // import waited 1,520 ms, bound 1,299).
          if (options.progress.halted) throw new ImportInterrupted();
        }
        if (inChunk >= options.chunkRows) {
          const committing = chunk;
          chunk = undefined;
          inChunk = 0;
          await committing.commit(imp.id, lastRow, false);
          this.metrics.rows.inc(options.chunkRows);
          options.progress.stagedTo(lastRow, false);
          await options.progress.untilMergerCatchesUp();
          if (options.progress.halted) throw new ImportInterrupted();
        }
      }
      if (record === 0) throw new ImportFileError('the file is empty: its first line must be the header (the column names)');
      const last = chunk ?? (await this.staging.begin(session));
      chunk = undefined;
      await last.commit(imp.id, lastRow, true);
      this.metrics.rows.inc(inChunk);
    } catch (err) {
      parser.destroy();
      await chunk?.abort();
      if (!(err instanceof CsvError)) throw err;
      // The parser runs ahead of this loop: its own count says where it stopped.
      const parsed = (err as CsvError & { records?: number }).records ?? record;
      if (err.code === 'CSV_MAX_RECORD_SIZE') {
        throw new ImportFileError(
          `record ${parsed + 1} is longer than ${ImportLimits.maxRecordBytes} bytes, the limit of one record (an unclosed quote, or a value too long): ` +
            'the file was read no further',
        );
      }
      throw new ImportFileError(`the file cannot be read as CSV from record ${parsed + 1} on: ${err.message}`);
    } finally {
      await piping;
    }
    options.progress.stagedTo(lastRow, true);
  }

  /** The file as enqueue checked it, when that was recorded: a file replaced since is refused. */
  private async open(key: string, expected?: StoredFile | null): Promise<Readable> {
    try {
      return await this.storage.openRead(key, expected ?? undefined);
    } catch (err) {
      if (err instanceof StoredFileNotFoundError) throw new ImportFileError('the uploaded file is no longer stored');
      if (err instanceof StoredFileChangedError) {
        throw new ImportFileError('the file under this storageKey was replaced after the import was enqueued: nothing of the new file was read (enqueue it again to load it)');
      }
      throw err;
    }
  }

  /** Imports enqueued before the delimiter was recorded: detected from the header line, as api-core does. */
  private async delimiterOf(key: string): Promise<string> {
    const source = await this.open(key);
    let head = '';
    for await (const chunk of source) {
      head += (chunk as Buffer).toString('utf8');
      if (/[\r\n]/.test(head)) break;
    }
    source.destroy();
    return detectDelimiter(head.split(/\r?\n|\r/)[0].replace(/^\uFEFF/, ''));
  }

  private header(imp: ImportRecord, header: string[]): { rules: RowRules; columnOf: (field: ImportField) => string } {
    if (header.length > ImportLimits.maxColumns) throw new ImportFileError(`the header has ${header.length} columns, more than the limit of ${ImportLimits.maxColumns}`);
    const missing = imp.columnMapping.filter((m) => !header.includes(m.sourceColumn)).map((m) => m.sourceColumn);
    if (missing.length) throw new ImportFileError(`the header has no column ${missing.map((c) => JSON.stringify(c)).join(', ')}`);
    const columns = fieldColumns(imp.columnMapping, header);
    const names = new Map<ImportField, string>();
    for (const m of imp.columnMapping) if (m.targetField !== null) names.set(m.targetField, m.sourceColumn);
    return { rules: new RowRules(columns, header.length), columnOf: (field) => names.get(field) ?? field };
  }
}
