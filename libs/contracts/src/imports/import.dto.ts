import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Length, ValidateIf, ValidateNested } from 'class-validator';
import { IMPORT_FIELDS, IMPORT_MODES, ImportField, ImportLimits, ImportMode, ImportStatus } from './import-fields';

// class-validator runs a field's decorators from the last written to the first and the gateway stops at
// the first error: the type check is written last, so a value of the wrong type is reported as such.

/** POST /v1/portfolios/{id}/imports/upload-url: no field is required (an empty body or {} is fine). */
export class ImportUploadUrlDto {
  /** The client's name for the file, kept for operators (not used to read it). */
  @IsOptional() @Length(1, 255) @IsString()
  fileName?: string;
}

export class ColumnMappingDto {
  /** A header of the CSV's first line, exactly as written there (after a BOM, which is ignored). */
  @Length(1, ImportLimits.sourceColumn) @IsString()
  sourceColumn!: string;

  /** A canonical field, or null to discard the column. */
  @ValidateIf((_, value) => value !== null)
  @IsIn(IMPORT_FIELDS, { message: `$property must be null or one of ${IMPORT_FIELDS.join(', ')}` })
  targetField!: ImportField | null;
}

/** POST /v1/portfolios/{id}/imports. */
export class EnqueueImportDto {
  @Length(1, ImportLimits.storageKey) @IsString()
  storageKey!: string;

  @ValidateNested({ each: true })
  @Type(() => ColumnMappingDto)
  @ArrayMaxSize(ImportLimits.maxMappings)
  @ArrayMinSize(1, { message: '$property must map at least one column' })
  @IsArray()
  columnMapping!: ColumnMappingDto[];

  @IsOptional()
  @IsIn(IMPORT_MODES, { message: `$property must be one of ${IMPORT_MODES.join(', ')}` })
  conflictResolution?: ImportMode;
}

/** Where and how to upload the CSV (answer of upload-url). */
export interface ImportUploadView {
  /** Pass it to POST /v1/portfolios/{id}/imports once the file is uploaded. */
  storageKey: string;
  uploadUrl: string;
  /**
   * `PUT`: the file is the body, sent with `headers`. `POST` (S3 storage): a multipart/form-data body
   * of `fields`, in order, then the file as the last field, named `file`.
   */
  method: 'PUT' | 'POST';
  /** Send exactly these headers with the upload (empty for a POST). */
  headers: Record<string, string>;
  /** The form fields of a POST upload, to send as they are (empty for a PUT). */
  fields: Record<string, string>;
  /** After this instant the URL refuses uploads and the key is no longer accepted by POST imports. */
  expiresAt: string;
  /** The largest file accepted, in bytes. */
  maxBytes: number;
}

/** An import as POST imports (202) and GET /v1/imports/{id} answer it. */
export interface ImportView {
  id: string;
  portfolioId: string;
  status: ImportStatus;
  conflictResolution: ImportMode;
  /** Rows that created their debt (or, without a debt, their debtor). */
  created: number;
  /** Rows that updated an existing debt or debtor. */
  updated: number;
  /** Rows refused; errorDetails lists the first ImportLimits.maxErrorDetails of them. */
  errors: number;
  /** Rows decided so far (created + updated + errors). */
  processedRows: number;
  /** Payments of the file registered by this import (payment_* fields; no payment.registered event). */
  paymentsRegistered: number;
  /** Payments of the file whose payment_external_id was already registered in the portfolio: nothing written, not an error. */
  paymentsSkipped: number;
  /** Data rows read from the file so far (final once the whole file has been read). */
  totalRows: number;
  /** `row <n>: <column>: <message>`, n the line's record number in the file (the header is row 1). */
  errorDetails: string[];
  /** Why a failed import stopped (null otherwise): a file that cannot be read or parsed, for example. */
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** RPC inputs. */
export interface ImportUploadUrlInput {
  portfolioId: string;
  body: ImportUploadUrlDto;
}
export interface EnqueueImportInput {
  portfolioId: string;
  body: EnqueueImportDto;
}
