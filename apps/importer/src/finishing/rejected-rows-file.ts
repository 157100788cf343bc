import { Inject, Injectable } from '@nestjs/common';
import { nextRejectedRowsPage, rejectedRowLine, rejectedRowsHeader, type RejectedRowsPageBounds } from '@dc/imports';
import type { ObjectStorage } from '@dc/storage';
import { Readable } from 'node:stream';
import { STORAGE } from '../importer.tokens';
import { ImportRecord, ImportsRepository } from '../imports.repository';
import type { Session } from '../sql-session';

/** Refused rows read and rendered at a time: a few MiB in memory, whatever the records' size. */
const PAGE: RejectedRowsPageBounds = { rows: 5_000, bytes: 4 * 1024 * 1024 };

/** Where an import's rejected-rows file is stored: beside its portfolio's uploads. */
export function rejectedRowsKey(imp: Pick<ImportRecord, 'id' | 'portfolioId'>): string {
  return `portfolios/${imp.portfolioId}/imports/${imp.id}-rejected-rows.csv`;
}

/**
 * The rejected-rows file of an import that completed, written once to storage (docs/adr/0049): the
 * gateway then streams it from there, at the disk's pace, instead of rendering a page of the table
 * per round trip. The rows stay in import_rejected_rows (a reading begun before the completion goes
 * on paging them). Nothing is stored when no row was refused; a run that stored it already (and
 * stopped before completing) does not store it again.
 */
@Injectable()
export class RejectedRowsFile {
  constructor(
    private readonly imports: ImportsRepository,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
  ) {}

  async store(session: Session, imp: ImportRecord): Promise<void> {
    const source = await this.imports.rejectedRowsToStore(session, imp.id);
    if (!source?.any) return;
    const key = rejectedRowsKey(imp);
    await this.storage.put(key, Readable.from(this.lines(session, imp.id, source.header, source.delimiter)));
    await this.imports.recordRejectedRowsFile(session, imp.id, key);
  }

  /** The file's text: its header line, then a page of rendered rows at a time. */
  private async *lines(session: Session, importId: string, header: string[], delimiter: string): AsyncGenerator<string> {
    yield rejectedRowsHeader(header, delimiter);
    for (let after: number | null = 0; after !== null; ) {
      const { rows, fetched } = await this.imports.rejectedRows(session, importId, after, PAGE);
      let text = '';
      for (const row of rows) text += rejectedRowLine(row, header, delimiter);
      if (text) yield text;
      after = nextRejectedRowsPage(rows, fetched, PAGE);
    }
  }
}
