import { Injectable } from '@nestjs/common';
import { from as copyFrom } from 'pg-copy-streams';
import type { Writable } from 'node:stream';
import { ImportCancelled } from '../import-errors';
import type { Session } from '../sql-session';
import { STAGING_COLUMNS } from './staged-row';

const COPY_SQL = `COPY import_rows (${STAGING_COLUMNS.join(', ')}) FROM STDIN`;
/** COPY lines are sent in pieces of about this many characters. */
const SEND_CHARS = 64 * 1024;

/**
 * One chunk being staged: a transaction with a COPY into import_rows open while the chunk's
 * records are parsed (Postgres stores each piece as it arrives, alongside the parsing), committed
 * with the import's checkpoint — so a restarted importer resumes after the last committed chunk,
 * no row staged twice, none lost (docs/adr/0022).
 */
export class StagingChunk {
  private pending = '';
  private failure?: Error;
  private readonly finished: Promise<void>;

  constructor(
    private readonly session: Session,
    private readonly copy: Writable,
  ) {
    this.finished = new Promise((resolve, reject) => {
      copy.once('finish', resolve);
      // `on`, not `once`: a COPY whose connection died errors again when abort() destroys it
      // (pg-copy-streams' CopyFail on a detached connection); unheard, that error killed the
      // importer when Postgres went away mid-chunk (fault suite, docs/adr/0028).
      copy.on('error', (err: Error) => {
        this.failure ??= err;
        reject(err);
      });
    });
    // Observed through `failure` and `commit`; never an unhandled rejection.
    this.finished.catch(() => undefined);
  }

  /** Adds one COPY line; resolves at once unless the connection asks to wait. */
  async add(line: string): Promise<void> {
    if (this.failure) throw this.failure;
    this.pending += line;
    if (this.pending.length < SEND_CHARS) return;
    await this.send();
  }

  /** Ends the COPY and commits it with the checkpoint: records up to `lastRow` are staged. */
  async commit(importId: string, lastRow: number, endOfFile: boolean): Promise<void> {
    try {
      await this.send();
      this.copy.end();
      await this.finished;
      // total_rows: data records read so far (the header is record 1).
      const result = await this.session.query(
        `UPDATE imports SET checkpoint_row = $2, total_rows = GREATEST($2 - 1, 0), updated_at = now()${endOfFile ? `, phase = 'merging'` : ''}
         WHERE id = $1 AND status = 'processing'`,
        [importId, lastRow],
      );
      // Cancelled by an operator meanwhile: nothing of the chunk is kept.
      if (result.rowCount === 0) throw new ImportCancelled();
      await this.session.query('COMMIT');
    } catch (err) {
      await this.abort();
      throw err;
    }
  }

  /** Nothing of the chunk is kept. */
  async abort(): Promise<void> {
    // After a failure the COPY is over already: nothing to cancel on a connection that may be gone.
    if (!this.failure && !this.copy.destroyed && !this.copy.writableFinished) this.copy.destroy();
    await this.session.query('ROLLBACK').catch(() => undefined);
  }

  private async send(): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.pending) return;
    const flowing = this.copy.write(this.pending);
    this.pending = '';
    if (!flowing) await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        this.copy.off('drain', done);
        this.copy.off('error', done);
        if (err) reject(err);
        else resolve();
      };
      this.copy.on('drain', done);
      this.copy.on('error', done);
    });
  }
}

/** Phase reading's SQL: staging chunks (the checkpoint is written by StagingChunk.commit). */
@Injectable()
export class StagingRepository {
  async begin(session: Session): Promise<StagingChunk> {
    await session.query('BEGIN');
    return new StagingChunk(session, session.query(copyFrom(COPY_SQL)));
  }
}
