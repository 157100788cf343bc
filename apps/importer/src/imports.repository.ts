import { Injectable } from '@nestjs/common';
import type { ColumnMappingDto, ImportMode } from '@dc/contracts';
import { ImportLimits } from '@dc/contracts';
import { Database, Prisma } from '@dc/database';
import { rejectedRowsPageStatement, type RejectedRow, type RejectedRowsPageBounds } from '@dc/imports';
import type { StoredFile } from '@dc/storage';
import { ImportCancelled } from './import-errors';
import { inTransaction, rows, Session } from './sql-session';

export type ImportPhase = 'reading' | 'merging' | 'finishing' | 'done';

/** The imports row as the importer reads it. */
export interface ImportRecord {
  id: string;
  portfolioId: string;
  organizationId: string;
  storageKey: string;
  columnMapping: ColumnMappingDto[];
  mode: ImportMode;
  /** Read, checked and merged, then rolled back: only the counters and the rejected rows stay (docs/adr/0049). */
  dryRun: boolean;
  status: 'queued' | 'processing' | 'completed' | 'failed';
  phase: ImportPhase;
  /** Last record staged (the header is record 1). */
  checkpointRow: number;
  /** Last record merged. */
  mergedRow: number;
  delimiter: string | null;
  /** created + updated so far. */
  written: number;
  /** The file as enqueue checked it (null for imports enqueued before that was recorded). */
  file: StoredFile | null;
  /** Runs that started and did not end the import, this one included once it is marked processing. */
  attempts: number;
  lastError: string | null;
}


/**
 * The imports row and the import's staging rows (docs/adr/0022). Everything of a running import
 * goes through its own sessions; only the start-up repair uses the pool.
 */
@Injectable()
export class ImportsRepository {
  constructor(private readonly database: Database) {}

  async load(session: Session, id: string): Promise<ImportRecord | null> {
    const [row] = await rows<ImportRecord>(
      session,
      `SELECT i.id, i.portfolio_id AS "portfolioId", p.organization_id AS "organizationId", i.storage_key AS "storageKey",
         i.column_mapping AS "columnMapping", i.conflict_resolution AS mode, i.dry_run AS "dryRun", i.status, i.phase, i.checkpoint_row AS "checkpointRow",
         i.merged_row AS "mergedRow", i.delimiter, i.created + i.updated AS written, i.attempts, i.last_error AS "lastError",
         CASE WHEN i.file_version IS NOT NULL THEN json_build_object('sizeBytes', i.file_size, 'version', i.file_version) END AS file
       FROM imports i JOIN portfolios p ON p.id = i.portfolio_id WHERE i.id = $1`,
      [id],
    );
    return row ?? null;
  }

  /**
   * The import's session-level advisory lock: held by the one process working on it, for as long
   * as its session lives. False when another process holds it.
   */
  async tryLock(session: Session, id: string): Promise<boolean> {
    const [row] = await rows<{ locked: boolean }>(session, `SELECT pg_try_advisory_lock(hashtextextended('import:' || $1, 0)) AS locked`, [id]);
    return row.locked;
  }

  /**
   * One of the organization's `slots` session-level advisory locks (`import-org:<org>:<k>`), held by
   * the run's session like the import's own lock: a crashed importer's slot is freed with its
   * session. False when every slot is taken (IMPORT_MAX_RUNNING_PER_ORGANIZATION runs are going on).
   */
  async tryOrganizationSlot(session: Session, organizationId: string, slots: number): Promise<boolean> {
    const [row] = await rows<{ slot: number | null }>(
      session,
      `SELECT (SELECT k FROM generate_series(0, $2 - 1) AS k
               WHERE pg_try_advisory_lock(hashtextextended('import-org:' || $1 || ':' || k, 0)) LIMIT 1) AS slot`,
      [organizationId, slots],
    );
    return row.slot !== null;
  }

  /** The import's place (1 = oldest) among its organization's unfinished imports: its job's priority. */
  async placeInOrganization(session: Session, id: string): Promise<number> {
    const [row] = await rows<{ place: number }>(
      session,
      `SELECT count(*)::int AS place
       FROM imports i JOIN portfolios p ON p.id = i.portfolio_id
       WHERE p.organization_id = (SELECT q.organization_id FROM imports x JOIN portfolios q ON q.id = x.portfolio_id WHERE x.id = $1)
         AND i.status IN ('queued', 'processing') AND i.id <= $1`,
      [id],
    );
    return row?.place ?? 1;
  }

  async unlock(session: Session, id: string): Promise<void> {
    await session.query(`SELECT pg_advisory_unlock(hashtextextended('import:' || $1, 0))`, [id]);
  }

  /**
   * queued → processing, one more attempt counted (a run that ends the import, or stops cleanly,
   * gives it back: `endAttempt`); started_at is set by the first run only.
   */
  async markProcessing(session: Session, id: string): Promise<void> {
    await session.query(
      `UPDATE imports SET status = 'processing', attempts = attempts + 1, started_at = COALESCE(started_at, now()), updated_at = now()
       WHERE id = $1 AND status IN ('queued', 'processing')`,
      [id],
    );
  }

  /**
   * How a run that did not end the import ended: cleanly (the importer stopping) gives its attempt
   * back; an error keeps it and is remembered as the reason should the attempts run out.
   */
  async endAttempt(session: Session, id: string, error: string | null): Promise<void> {
    await session.query(
      error === null
        ? `UPDATE imports SET attempts = greatest(attempts - 1, 0) WHERE id = $1`
        : `UPDATE imports SET last_error = $2 WHERE id = $1`,
      error === null ? [id] : [id, error.slice(0, 1000)],
    );
  }

  /**
   * Makes the staging rows agree with the checkpoints before a (re)start: rows past checkpoint_row
   * are removed (none, normally: a chunk commits with its checkpoint), and when any record between
   * 2 and checkpoint_row is missing (the table was emptied by hand, or restored without it), the
   * file is read again from the start — merged_row is kept, so rows already merged are staged again
   * (reconcile reads them) but not merged twice. Returns the import as it resumes.
   */
  async alignStaging(session: Session, imp: ImportRecord): Promise<ImportRecord> {
    if (imp.phase !== 'reading' && imp.phase !== 'merging') return imp;
    return inTransaction(session, async () => {
      await session.query('DELETE FROM import_rows WHERE import_id = $1 AND row_number > $2', [imp.id, imp.checkpointRow]);
      const [{ staged }] = await rows<{ staged: number }>(session, 'SELECT count(*)::int AS staged FROM import_rows WHERE import_id = $1', [imp.id]);
      if (staged === Math.max(0, imp.checkpointRow - 1)) return imp;
      await session.query('DELETE FROM import_rows WHERE import_id = $1', [imp.id]);
      await session.query(`UPDATE imports SET checkpoint_row = 0, phase = 'reading', updated_at = now() WHERE id = $1`, [imp.id]);
      return { ...imp, checkpointRow: 0, phase: 'reading' };
    });
  }

  /**
   * merging → finishing. In mode reconcile, in the same transaction and under the portfolio's
   * exclusive lock: every live active debt of the portfolio whose external id no row of the file
   * names becomes paid (cancelled and paid debts are untouched). Returns how many. A mapping without
   * debt_external_id says nothing about debts: nothing is marked paid (rather than every debt).
   */
  async finishMerge(session: Session, imp: ImportRecord, statementTimeoutMs: number): Promise<number> {
    return inTransaction(session, async () => {
      let reconciled = 0;
      if (imp.mode === 'reconcile') {
        await session.query(`SET LOCAL statement_timeout = ${Math.floor(statementTimeoutMs)}`);
        await session.query(`SELECT pg_advisory_xact_lock(hashtextextended('portfolio:' || $1, 0))`, [imp.portfolioId]);
        reconciled = await this.markUnlistedPaid(session, imp);
      }
      const result = await session.query(
        `UPDATE imports SET phase = 'finishing', marked_paid = $2, updated_at = now() WHERE id = $1 AND status = 'processing'`,
        [imp.id, reconciled],
      );
      // Cancelled by an operator meanwhile: reconcile's paid debts roll back with it.
      if (result.rowCount === 0) throw new ImportCancelled();
      return reconciled;
    });
  }

  /**
   * Reconcile's marking, in the caller's transaction under the portfolio's lock: every live active
   * debt of the portfolio whose external id no row of the file names becomes paid. Returns how many.
   */
  async markUnlistedPaid(session: Session, imp: ImportRecord): Promise<number> {
    if (!imp.columnMapping.some((m) => m.targetField === 'debt_external_id')) return 0;
    const result = await session.query(
      `UPDATE debts AS t SET paid_amount = t.total_amount, status = 'paid', updated_at = now()
       WHERE t.portfolio_id = $2 AND t.deleted_at IS NULL AND t.status = 'active'
         AND NOT EXISTS (SELECT 1 FROM import_rows s WHERE s.import_id = $1 AND s.debt_external_id = t.external_id)`,
      [imp.id, imp.portfolioId],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Refreshes the planner's statistics of the tables an import writes (debtors, debts, their phones
   * and emails: autovacuum lags every bulk load, never rely on fresh statistics). Through a SECURITY
   * DEFINER function owned by the migration role: the importer's role owns no table (docs/adr/0027).
   */
  async analyze(session: Session): Promise<void> {
    await session.query('SELECT refresh_import_statistics(false)');
  }

  /** What the rejected-rows file is made of: the file's header and delimiter, and whether a row was refused; null once the file is stored. */
  async rejectedRowsToStore(session: Session, id: string): Promise<{ header: string[]; delimiter: string; any: boolean } | null> {
    const [row] = await rows<{ header: string[] | null; delimiter: string | null; any: boolean }>(
      session,
      `SELECT i.header, i.delimiter, EXISTS (SELECT 1 FROM import_rejected_rows r WHERE r.import_id = i.id) AS any
       FROM imports i WHERE i.id = $1 AND i.rejected_rows_file IS NULL`,
      [id],
    );
    return row ? { header: row.header ?? [], delimiter: row.delimiter ?? ',', any: row.any } : null;
  }

  /** A page of the import's refused rows (rejectedRowsPageStatement). */
  async rejectedRows(session: Session, id: string, afterRow: number, bounds: RejectedRowsPageBounds): Promise<{ rows: RejectedRow[]; fetched: number }> {
    const page = rejectedRowsPageStatement(id, afterRow, bounds);
    const found = await rows<RejectedRow & { fetched: number }>(session, page.text, page.values);
    return { rows: found, fetched: found[0]?.fetched ?? 0 };
  }

  async recordRejectedRowsFile(session: Session, id: string, key: string): Promise<void> {
    await session.query('UPDATE imports SET rejected_rows_file = $2, updated_at = now() WHERE id = $1', [id, key]);
  }

  async deleteStaging(session: Session, id: string): Promise<void> {
    await session.query('DELETE FROM import_rows WHERE import_id = $1', [id]);
  }

  /**
   * Done. On the pool rather than the control session (which still holds the import's lock), so the
   * WAL position of the commit comes back in the same round trip (`lsn`), with the API key that
   * enqueued the import: its reads wait for a replica that shows the import's rows (docs/adr/0050).
   */
  async complete(id: string): Promise<{ apiKeyId: string | null; lsn: string }> {
    const { result, lsn } = await this.database.preparedCommitted<{ apiKeyId: string }>(Prisma.sql`
      UPDATE imports SET status = 'completed', phase = 'done', finished_at = now(), updated_at = now()
      WHERE id = ${id} AND status = 'processing'
      RETURNING (SELECT u.api_key_id FROM uploads u WHERE u.id = imports.upload_id) AS "apiKeyId"`);
    return { apiKeyId: result[0]?.apiKeyId ?? null, lsn };
  }

  /**
   * The file's fault: failed with `reason`. Counters stay as they are (what was merged stays
   * merged); `refused` adds rows refused by a run whose writes were rolled back (a replace that
   * would load nothing).
   */
  async fail(session: Session, id: string, reason: string, refused = { errorDetails: [] as string[], errors: 0 }): Promise<void> {
    await inTransaction(session, async () => {
      await session.query(
        `UPDATE imports SET status = 'failed', failure_reason = $2, finished_at = now(), updated_at = now(),
           errors = errors + $4, processed_rows = processed_rows + $4,
           error_details = (error_details || $3::text[])[1:${ImportLimits.maxErrorDetails}]
         WHERE id = $1 AND status IN ('queued', 'processing')`,
        [id, reason, refused.errorDetails.slice(0, ImportLimits.maxErrorDetails), refused.errors],
      );
      await session.query('DELETE FROM import_rows WHERE import_id = $1', [id]);
    });
  }

  /**
   * Whether an import's stored file may go now that it has ended: its upload has expired (nobody can
   * enqueue the key again, docs/imports.md) and no other unfinished import reads it.
   */
  async fileReleasable(session: Session, importId: string): Promise<boolean> {
    const [row] = await rows<{ releasable: boolean }>(
      session,
      `SELECT u.expires_at <= now() AND NOT EXISTS (
           SELECT 1 FROM imports o WHERE o.upload_id = u.id AND o.id <> i.id AND o.status IN ('queued', 'processing')) AS releasable
       FROM imports i JOIN uploads u ON u.id = i.upload_id WHERE i.id = $1`,
      [importId],
    );
    return row?.releasable ?? false;
  }

  /** Stored files whose upload expired after `since` (and by now) and that no unfinished import reads. */
  async expiredFiles(since: Date): Promise<string[]> {
    const found = await this.database.prepared<{ key: string }>(Prisma.sql`
      SELECT u.storage_key AS key FROM uploads u
      WHERE u.expires_at > ${since} AND u.expires_at <= now()
        AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.upload_id = u.id AND i.status IN ('queued', 'processing'))
      ORDER BY u.expires_at`);
    return found.map((r) => r.key);
  }

  /**
   * Imports not finished (queued or processing), each with its organization and its place among that
   * organization's unfinished imports: the start-up repair makes sure each has a job.
   */
  async unfinished(): Promise<{ id: string; organizationId: string; place: number }[]> {
    // Through the pool (not Prisma's query engine, which the importer never loads: ~50 MB less RSS).
    return this.database.prepared<{ id: string; organizationId: string; place: number }>(Prisma.sql`
      SELECT i.id, p.organization_id AS "organizationId",
        (row_number() OVER (PARTITION BY p.organization_id ORDER BY i.id))::int AS place
      FROM imports i JOIN portfolios p ON p.id = i.portfolio_id
      WHERE i.status IN ('queued', 'processing') ORDER BY i.id`);
  }
}
