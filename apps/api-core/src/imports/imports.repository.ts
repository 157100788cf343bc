import { Injectable } from '@nestjs/common';
import { AuthContext, ColumnMappingDto, ImportMode, ImportView } from '@dc/contracts';
import { Database, isoDates, newId, Prisma, Stored } from '@dc/database';
import { reachablePortfolioSql } from '../reach/reach.repository';
import { rejectedRowsPageStatement, type RejectedRow, type RejectedRowsPageBounds } from '@dc/imports';
import type { StoredFile } from '@dc/storage';
import { storageKeyOf } from './storage-key';

/** An import as its SQL returns it: the ImportView, timestamps still Date. */
type ImportRow = Stored<ImportView, 'createdAt' | 'updatedAt' | 'startedAt' | 'finishedAt'>;

/** An uploads row as enqueue checks it. */
export interface IssuedUpload {
  id: string;
  expiresAt: Date;
}

export interface NewUpload {
  portfolioId: string;
  apiKeyId: string;
  fileName: string | null;
  expiresAt: Date;
}

export interface NewImport {
  portfolioId: string;
  uploadId: string;
  storageKey: string;
  columnMapping: ColumnMappingDto[];
  conflictResolution: ImportMode;
  dryRun: boolean;
  delimiter: string;
  /** The file's header as read at enqueue (the rejected-rows file's first line). */
  header: string[];
  /** The file as enqueue checked it: the importer reads exactly these bytes. */
  file: StoredFile;
}

/** imports columns named as ImportView's fields, in its order. */
const IMPORT_COLUMNS = Prisma.sql`
  i.id, i.portfolio_id AS "portfolioId", i.status, i.conflict_resolution AS "conflictResolution", i.dry_run AS "dryRun",
  i.created, i.updated, i.unchanged, i.errors, i.marked_paid AS "markedPaid", i.deleted,
  i.processed_rows AS "processedRows", i.payments_registered AS "paymentsRegistered", i.payments_skipped AS "paymentsSkipped",
  i.total_rows AS "totalRows", i.error_details AS "errorDetails",
  i.failure_reason AS "failureReason", i.created_at AS "createdAt", i.updated_at AS "updatedAt",
  i.started_at AS "startedAt", i.finished_at AS "finishedAt"`;

/** The only SQL of uploads and imports at api-core; the rules are ImportsService's. */
@Injectable()
export class ImportsRepository {
  constructor(private readonly db: Database) {}

  /** A new upload of the portfolio; its storage key is derived from its id. Returns the key. */
  async insertUpload(upload: NewUpload): Promise<string> {
    const id = newId('upl');
    const storageKey = storageKeyOf(upload.portfolioId, id);
    await this.db.client.$executeRaw`
      INSERT INTO uploads (id, portfolio_id, api_key_id, storage_key, file_name, expires_at, created_at)
      VALUES (${id}, ${upload.portfolioId}, ${upload.apiKeyId}, ${storageKey}, ${upload.fileName}, ${upload.expiresAt}, now())`;
    return storageKey;
  }

  /** The upload issued under `storageKey` for that portfolio (any other portfolio's, or none: null). */
  async findUpload(portfolioId: string, storageKey: string): Promise<IssuedUpload | null> {
    const [row] = await this.db.client.$queryRaw<IssuedUpload[]>`
      SELECT u.id, u.expires_at AS "expiresAt" FROM uploads u
      WHERE u.storage_key = ${storageKey} AND u.portfolio_id = ${portfolioId}`;
    return row ?? null;
  }

  /** A queued import, reading from the start of the file (the job is added once this is committed). */
  async insertImport(created: NewImport): Promise<ImportView> {
    const mapping = created.columnMapping.map(({ sourceColumn, targetField }) => ({ sourceColumn, targetField }));
    const [row] = await this.db.client.$queryRaw<ImportRow[]>`
      INSERT INTO imports AS i (id, portfolio_id, upload_id, storage_key, column_mapping, conflict_resolution, dry_run, status, phase, delimiter,
        header, file_size, file_version, created_at, updated_at)
      VALUES (${newId('imp')}, ${created.portfolioId}, ${created.uploadId}, ${created.storageKey}, ${JSON.stringify(mapping)}::jsonb,
        ${created.conflictResolution}, ${created.dryRun}, 'queued', 'reading', ${created.delimiter}, ${created.header}::text[],
        ${created.file.sizeBytes}, ${created.file.version}, now(), now())
      RETURNING ${IMPORT_COLUMNS}`;
    return isoDates(row);
  }

  /** The import's place (1 = oldest) among its organization's unfinished imports (imports_unfinished_idx). */
  async placeInOrganization(id: string): Promise<number> {
    const [row] = await this.db.client.$queryRaw<{ place: number }[]>`
      SELECT count(*)::int AS place
      FROM imports i JOIN portfolios p ON p.id = i.portfolio_id
      WHERE p.organization_id = (SELECT q.organization_id FROM imports x JOIN portfolios q ON q.id = x.portfolio_id WHERE x.id = ${id})
        AND i.status IN ('queued', 'processing') AND i.id <= ${id}`;
    return row?.place ?? 1;
  }

  /** A queued import whose job could not be added ends failed, before any importer saw it. */
  async failQueued(id: string, reason: string): Promise<void> {
    await this.db.client.$executeRaw`
      UPDATE imports SET status = 'failed', failure_reason = ${reason}, finished_at = now(), updated_at = now()
      WHERE id = ${id} AND status = 'queued'`;
  }

  /**
   * Operator cancel: a queued or processing import ends failed, reason `cancelled`. When no importer
   * is running it (its advisory lock is free), its staging rows go in the same transaction; a
   * running importer sees the status at its next chunk, rolls that chunk back and removes them.
   * Null when the import does not exist; its view as it is when it had already ended (`cancelled`
   * false).
   */
  async cancel(id: string): Promise<{ view: ImportView; cancelled: boolean } | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.$queryRaw<ImportRow[]>`
        UPDATE imports AS i SET status = 'failed', failure_reason = 'cancelled', finished_at = now(), updated_at = now()
        WHERE i.id = ${id} AND i.status IN ('queued', 'processing')
        RETURNING ${IMPORT_COLUMNS}`;
      if (row) {
        const [{ free }] = await tx.$queryRaw<{ free: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtextextended('import:' || ${id}, 0)) AS free`;
        if (free) await tx.$executeRaw`DELETE FROM import_rows WHERE import_id = ${id}`;
        return { view: isoDates(row), cancelled: true };
      }
      const [ended] = await tx.$queryRaw<ImportRow[]>`SELECT ${IMPORT_COLUMNS} FROM imports i WHERE i.id = ${id}`;
      return ended ? { view: isoDates(ended), cancelled: false } : null;
    });
  }

  /**
   * The mapping of the portfolio's last completed real load (not a dry run): the preview suggests it
   * again for the columns it names.
   */
  async lastMapping(portfolioId: string): Promise<ColumnMappingDto[] | null> {
    const [row] = await this.db.prepared<{ mapping: ColumnMappingDto[] }>(Prisma.sql`
      SELECT i.column_mapping AS mapping FROM imports i
      WHERE i.portfolio_id = ${portfolioId} AND i.status = 'completed' AND NOT i.dry_run
      ORDER BY i.id DESC LIMIT 1`);
    return row?.mapping ?? null;
  }

  /** How the import's file was written (its delimiter and header), and its stored rejected-rows file, when its portfolio is within the key's reach. */
  async findReachableDialect(auth: AuthContext, id: string): Promise<{ delimiter: string; header: string[]; file: string | null } | null> {
    const [row] = await this.db.prepared<{ delimiter: string | null; header: string[] | null; file: string | null }>(Prisma.sql`
      SELECT i.delimiter, i.header, i.rejected_rows_file AS file
      FROM imports i JOIN portfolios p ON p.id = i.portfolio_id
      WHERE i.id = ${id} AND ${reachablePortfolioSql(auth)}`);
    return row ? { delimiter: row.delimiter ?? ',', header: row.header ?? [], file: row.file } : null;
  }

  /** A page of the import's refused rows (rejectedRowsPageStatement). */
  async rejectedRows(id: string, afterRow: number, bounds: RejectedRowsPageBounds): Promise<{ rows: RejectedRow[]; fetched: number }> {
    const found = await this.db.prepared<RejectedRow & { fetched: number }>(rejectedRowsPageStatement(id, afterRow, bounds));
    return { rows: found, fetched: found[0]?.fetched ?? 0 };
  }

  /** The import when its portfolio is within the key's reach (reach/reach.repository.ts). */
  async findReachable(auth: AuthContext, id: string): Promise<ImportView | null> {
    const [row] = await this.db.prepared<ImportRow>(Prisma.sql`
      SELECT ${IMPORT_COLUMNS}
      FROM imports i JOIN portfolios p ON p.id = i.portfolio_id
      WHERE i.id = ${id} AND ${reachablePortfolioSql(auth)}`);
    return row ? isoDates(row) : null;
  }
}
