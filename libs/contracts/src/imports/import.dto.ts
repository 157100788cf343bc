import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, ValidateIf, ValidateNested } from 'class-validator';
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

  /**
   * true: the whole load runs — reading, row rules, matching in the mode — and nothing of it is
   * written to debtors, debts or payments; the import ends with the counters a real run would have.
   */
  @IsOptional() @IsBoolean()
  dryRun?: boolean;
}

/** POST /v1/portfolios/{id}/imports/preview. */
export class PreviewImportDto {
  /** A key returned by upload-url for this portfolio, its file uploaded, not expired. */
  @Length(1, ImportLimits.storageKey) @IsString()
  storageKey!: string;
}

/** Why a column's field was suggested. */
export const MAPPING_SUGGESTION_REASONS = ['exact_name', 'synonym', 'value_pattern', 'previous_import'] as const;
export type MappingSuggestionReason = (typeof MAPPING_SUGGESTION_REASONS)[number];

/** One column of the previewed file and the field suggested for it. */
export interface ImportMappingSuggestion {
  /** The column's name, exactly as in the header. */
  sourceColumn: string;
  /** The canonical field suggested; null when nothing fits (the column would be ignored). */
  targetField: ImportField | null;
  /** From 0 (nothing) to 1 (the field's own name). */
  confidence: number;
  /** Why, for people; null when targetField is null and nothing was considered. */
  reason: string | null;
  /** Why, for programs: the column's name is the field's, a known synonym (English or Spanish), its values' pattern, or the mapping last used on this portfolio. */
  reasonCode: MappingSuggestionReason | null;
}

/** What the start of an uploaded file says, read without loading it (POST …/imports/preview). */
export interface ImportPreviewView {
  storageKey: string;
  /** The delimiter the file will be read with: `,`, `;`, tab or `|` (the first of them in the header line). */
  delimiter: string;
  /** Always `utf-8`, the one encoding loaded; `warnings` says when the start of the file is not valid UTF-8. */
  encoding: 'utf-8';
  /** The file starts with a UTF-8 byte order mark (ignored when loading). */
  bom: boolean;
  /** The column names, exactly as in the file. */
  header: string[];
  /** The first data rows (at most 10), their cells as read (not trimmed). */
  sampleRows: string[][];
  /** Data rows of the file: exact when the whole file was read (rowCountEstimated false), else estimated from its size and the sample's rows. */
  rowCount: number;
  rowCountEstimated: boolean;
  /** The file's size in bytes. */
  fileBytes: number;
  /** One item per column of the header, in order: its non-null pairs form a valid columnMapping when the file allows one. */
  suggestedMapping: ImportMappingSuggestion[];
  /** What the start of the file or the suggestion shows will refuse rows or the mapping, for people. */
  warnings: string[];
  /** The storageKey, and so this preview, is valid until then: enqueue before it. */
  expiresAt: string;
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
  /** A dry run: nothing was written; the counters say what a real run would have done. */
  dryRun: boolean;
  /** Rows that created their debt (or, without a debt, their debtor). */
  created: number;
  /** Rows that updated an existing debt or debtor. */
  updated: number;
  /** Of `updated`: rows whose debtor and debt already held every value of the row (nothing changed). */
  unchanged: number;
  /** Rows refused; errorDetails lists the first ImportLimits.maxErrorDetails of them. GET /v1/imports/{id}/rejected-rows has them all. */
  errors: number;
  /** reconcile: live active debts of the portfolio not in the file, marked paid (0 in the other modes). */
  markedPaid: number;
  /** replace: live debtors of the portfolio removed, with their debts (0 in the other modes). */
  deleted: number;
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
export interface PreviewImportInput {
  portfolioId: string;
  body: PreviewImportDto;
}
/** One page of an import's rejected-rows file: the rows after `afterRow` (0: from the start, the header line first). */
export interface RejectedRowsPageInput {
  id: string;
  afterRow: number;
}
export interface RejectedRowsPage {
  /** CSV text: the header line on the first page (with a UTF-8 BOM), then whole records, each ending CRLF. */
  text: string;
  /** The row to ask after for the next page; null: this was the last. */
  nextAfterRow: number | null;
  /**
   * The storage key of the whole file, once the import completed (the importer wrote it then): the
   * gateway streams it from storage instead, and `text` is empty. Null while the import runs or when it failed.
   */
  file: string | null;
}
