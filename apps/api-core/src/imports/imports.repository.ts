import { Injectable } from '@nestjs/common';
import { AuthContext, ColumnMappingDto, ImportMode, ImportView } from '@dc/contracts';
import { Database, isoDates, newId, Prisma, Stored } from '@dc/database';
import { reachablePortfolioSql } from '../reach/reach.repository';
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
  delimiter: string;
}

/** imports columns named as ImportView's fields, in its order. */
const IMPORT_COLUMNS = Prisma.sql`
  i.id, i.portfolio_id AS "portfolioId", i.status, i.conflict_resolution AS "conflictResolution", i.created, i.updated, i.errors,
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
      INSERT INTO imports AS i (id, portfolio_id, upload_id, storage_key, column_mapping, conflict_resolution, status, phase, delimiter,
        created_at, updated_at)
      VALUES (${newId('imp')}, ${created.portfolioId}, ${created.uploadId}, ${created.storageKey}, ${JSON.stringify(mapping)}::jsonb,
        ${created.conflictResolution}, 'queued', 'reading', ${created.delimiter}, now(), now())
      RETURNING ${IMPORT_COLUMNS}`;
    return isoDates(row);
  }

  /** A queued import whose job could not be added ends failed, before any importer saw it. */
  async failQueued(id: string, reason: string): Promise<void> {
    await this.db.client.$executeRaw`
      UPDATE imports SET status = 'failed', failure_reason = ${reason}, finished_at = now(), updated_at = now()
      WHERE id = ${id} AND status = 'queued'`;
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
