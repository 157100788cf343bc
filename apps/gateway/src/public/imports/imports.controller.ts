import { Body, Controller, Inject, Param } from '@nestjs/common';
import { IMPORT_DEFAULTS } from '@dc/config';
import {
  AppError, EnqueueImportDto, IMPORT_FIELDS, IMPORT_MODES, ImportLimits, ImportsRpc, ImportUploadUrlDto, isId, PAYMENT_METHODS,
  PreviewImportDto, RejectedRowsPage, REQUIRED_DEBT_FIELDS, REQUIRED_IMPORT_FIELDS, REQUIRED_PAYMENT_FIELDS,
} from '@dc/contracts';
import type { ObjectStorage } from '@dc/storage';
import { Readable } from 'node:stream';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, CoreReply, PublicCaller } from '../../core-client/core-client';
import { PublicRoute } from '../../routes/public-route.decorator';
import { STORAGE } from '../../tokens';

const GUIDE = 'The whole flow, the CSV format and the rules of each field and mode: docs/imports.md.';

const n = (x: number) => x.toLocaleString('en');

/** Every limit of the load flow, in one table (docs/imports.md "Limits" is the same); defaults, with their settings. */
const LIMITS = [
  '**Limits** (defaults; operators set those with a setting):',
  '',
  '| limit | default | setting |',
  '|---|---|---|',
  `| file size | ${n(IMPORT_DEFAULTS.maxFileBytes)} bytes (1 GiB) | IMPORT_MAX_FILE_BYTES |`,
  `| data rows of a file | ${n(IMPORT_DEFAULTS.maxRows)} | IMPORT_MAX_ROWS |`,
  `| one record (all its fields) | ${n(ImportLimits.maxRecordBytes)} bytes | — |`,
  `| columns of the header | ${n(ImportLimits.maxColumns)} | — |`,
  `| header line | ${n(ImportLimits.maxHeaderBytes)} bytes | — |`,
  `| entries of columnMapping | ${ImportLimits.maxMappings} | — |`,
  `| validity of the upload URL, its storageKey, and so of a preview and of loading the key again | ${IMPORT_DEFAULTS.uploadTtlSeconds / 3600} hour | IMPORT_UPLOAD_TTL_SECONDS |`,
  `| rows a preview reads | the header and ${ImportLimits.previewRows} rows | — |`,
  `| errorDetails lines | ${ImportLimits.maxErrorDetails} (errors counts all; rejected-rows has all) | — |`,
  `| imports an organization runs at once | ${IMPORT_DEFAULTS.maxRunningPerOrganization} | IMPORT_MAX_RUNNING_PER_ORGANIZATION |`,
  `| rows of a chunk (a running import may step aside between chunks) | ${n(IMPORT_DEFAULTS.chunkRows)} | IMPORT_CHUNK_ROWS |`,
  `| runs of one import that did not end it | ${IMPORT_DEFAULTS.maxAttempts} | IMPORT_MAX_ATTEMPTS |`,
].join('\n');

const STATUSES =
  '**Statuses**: `queued` (accepted, waiting for an importer) → `processing` → `completed` (the whole file was read; rows may ' +
  'still have been refused, see `errors`) | `failed` (the load stopped: the file cannot be read or parsed, or the import could not ' +
  'be queued; `failureReason` says why). An import is processed by one importer at a time and resumes where it stopped after a restart.';

const COUNTERS =
  '**Counters**, updated while processing: `created` (rows that created their debt, or their debtor when the row has no debt), ' +
  '`updated` (rows that updated an existing debt or debtor; of them, `unchanged` found every value already stored), `errors` ' +
  '(rows refused; the others still load; GET /v1/imports/{id}/rejected-rows has them all), `markedPaid` (reconcile: debts not in ' +
  'the file marked paid), `deleted` (replace: debtors removed with their debts), `processedRows` = ' +
  'created + updated + errors, `totalRows` (data rows read so far; final once the file is read). `errorDetails` holds the first ' +
  `${ImportLimits.maxErrorDetails} refusals as \`row <n>: <column>: <message>\`, n the record number in the file with the header as row 1 ` +
  '(the first data row is row 2), column the CSV header name; `errors` is the total. `paymentsRegistered`: payments of the file ' +
  'registered; `paymentsSkipped`: payments whose `payment_external_id` was already registered in the portfolio (by an earlier ' +
  'load, or an earlier row of this file), so nothing was written for them (not an error).';

const MODES =
  '`conflictResolution` (default `add`): `add` always creates, with no matching: every valid row makes its debtor and debt, ' +
  'whatever debtor or debt external ids are already live in the portfolio, so a file loaded twice duplicates the whole set ' +
  '(rows of the file with one document are one debtor; a `debt_external_id` repeated for that debtor is one debt). This is the one ' +
  'exception to "debt external ids are unique within the portfolio", which binds the debtor batch\'s own writes ' +
  '(`debt_external_id_in_use`). Once duplicates exist, `update`, `reconcile` and the debtor batch match the oldest live debtor (the ' +
  'lowest id) and, for a debt, the matched debtor\'s own debt with that external id; a debt external id live only under other ' +
  'debtors refuses the row (item). Payments name debts by id, which stays unique. `update` matches the debtor by document ' +
  '(identity_document_type + identity_document_number) and each debt by `debt_external_id`, updating in place; `reconcile` is ' +
  '`update`, and every live active debt of the portfolio whose external id is not in the file becomes paid; `replace` soft-deletes ' +
  'the portfolio\'s debtors and debts and loads the file afresh, in one transaction: the old set disappears only when the new load ' +
  'has succeeded. Row validation applies in every mode: a bad phone, amount or currency refuses the row.';

const PAYMENTS =
  '**Payments in a load**: one payment per row with `payment_external_id` (the file\'s id of the payment, 1 to 128 characters), ' +
  '`payment_amount` (above 0), `payment_date`, and optionally `payment_currency` (ISO 4217; omitted: the row\'s debt\'s currency, ' +
  'else the single currency of the debtor\'s live debts, else the portfolio\'s main currency, as POST /v1/payments derives it), ' +
  `\`payment_method\` (${PAYMENT_METHODS.join(', ')}; default transfer) and \`payment_reference\`. It is registered against the row's ` +
  'debt (or its debtor, for a row without a debt), listed by GET /v1/payments with `externalId` null, and emits no ' +
  '`payment.registered`; it does not change the debt\'s amounts (the row\'s `debt_paid_amount` is the debt\'s snapshot). A row whose ' +
  '`payment_external_id` is already registered in the portfolio registers nothing again (counted in `paymentsSkipped`), whatever ' +
  'debtor the row now matches: a file may be loaded again safely.';

@Controller()
export class ImportsController {
  constructor(
    private readonly core: CoreClient,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
  ) {}

  @PublicRoute({
    method: 'POST',
    path: 'portfolios/:id/imports/upload-url',
    scope: 'write',
    rpc: ImportsRpc.uploadUrl,
    doc: {
      summary: 'Get a place to upload a CSV file (step 1 of a portfolio load; step 2 is the upload)',
      description: [
        'Issues a new `storageKey` for the portfolio and the URL to upload its file to. The body is optional (`{}` or none); ' +
          '`fileName` is kept for operators only.',
        'Upload the file with one request to `uploadUrl`, no API key, as `method` says. `PUT` (the platform\'s own storage): ' +
          'exactly the returned `headers` (`Content-Type: text/csv`), the whole file as the body; 200. `POST` (S3 storage): a ' +
          '`multipart/form-data` body of every entry of `fields`, as given and in order, then the file as the last field, named ' +
          '`file`; 204, and S3\'s own errors (400 EntityTooLarge, 403 AccessDenied). At most `maxBytes` bytes (IMPORT_MAX_FILE_BYTES, ' +
          'default 1 GiB), refused while uploading. The URL and the key are valid until `expiresAt` (IMPORT_UPLOAD_TTL_SECONDS after ' +
          'issue, default 1 hour): upload, then enqueue with POST /v1/portfolios/{id}/imports, before it.',
        GUIDE,
      ].join('\n\n'),
      returns: 'ImportUploadView',
    },
  })
  uploadUrl(@Param('id') id: string, @Body() body: ImportUploadUrlDto, @Caller() caller: PublicCaller) {
    if (!isId('pf', id)) throw AppError.notFound('portfolio');
    return this.core.send(ImportsRpc.uploadUrl, caller, { portfolioId: id, body });
  }

  @PublicRoute({
    method: 'POST',
    path: 'portfolios/:id/imports',
    scope: 'write',
    rpc: ImportsRpc.enqueue,
    idempotent: true,
    doc: {
      summary: 'Enqueue the load of an uploaded CSV file (step 3)',
      description: [
        'Checks everything that can be checked before the load, then answers 202 with the import in status `queued`; poll it with ' +
          'GET /v1/imports/{id}. Nothing is queued when any check fails.',
        '400 `validation_error` naming `storageKey` (issue path `storageKey`) when the key was not issued by upload-url for this ' +
          'portfolio (an invented key, or another portfolio\'s), has expired, has no file uploaded under it, names a file larger ' +
          'than the limit, or names a file whose header line cannot be read (empty file, a column without a name, a name twice). ' +
          'A valid key may be enqueued again (the same file in another mode, for example): each accepted request is a new import.',
        '400 `validation_error` with issues under `columnMapping` when the mapping cannot make a valid row: a `targetField` outside ' +
          `the closed list (null discards the column; unmapped columns are ignored too), a field or a source column mapped twice, a ` +
          `\`sourceColumn\` that is not in the file's header, any of ${REQUIRED_IMPORT_FIELDS.join(', ')} unmapped, or a debt field ` +
          `mapped without all of ${REQUIRED_DEBT_FIELDS.join(', ')}, or a payment field mapped without all of ` +
          `${REQUIRED_PAYMENT_FIELDS.join(', ')}. At most ${ImportLimits.maxMappings} entries.`,
        `Canonical fields (targetField): ${IMPORT_FIELDS.map((f) => `\`${f}\``).join(', ')}. Modes: ${IMPORT_MODES.join(', ')}.`,
        MODES,
        PAYMENTS,
        '**Dry run**: `dryRun: true` runs the whole load — reading, row rules, matching in the mode, reconcile\'s marking, ' +
          'replace\'s removal — and writes nothing to debtors, debts or payments: the import ends `completed` (or `failed`, as the ' +
          'real run would) with the counters a real run of the file on the same data would have, and its rejected rows. Like ' +
          'replace, it holds the portfolio\'s write lock while it merges (debtor batches of that portfolio wait). The key stays ' +
          'usable: load it for real afterwards.',
        'Idempotency-Key as on the debtor batch: the same request with the same key within 24 h answers the same import with ' +
          '`Idempotent-Replayed: true` and enqueues nothing; the same key with another body or portfolio is 409. Without the header ' +
          'every accepted request enqueues a new import. 503 `service_unavailable` when the job queue is unreachable: the import ' +
          'is then `failed` and the same storageKey may be enqueued again.',
        STATUSES,
        LIMITS,
        GUIDE,
      ].join('\n\n'),
      returns: 'ImportView',
    },
  })
  enqueue(@Param('id') id: string, @Body() body: EnqueueImportDto, @Caller() caller: PublicCaller) {
    if (!isId('pf', id)) throw AppError.notFound('portfolio');
    return this.core.send(ImportsRpc.enqueue, caller, { portfolioId: id, body });
  }

  @PublicRoute({
    method: 'POST',
    path: 'portfolios/:id/imports/preview',
    scope: 'write',
    rpc: ImportsRpc.preview,
    doc: {
      summary: 'Preview an uploaded CSV file: its dialect, first rows, size and a suggested columnMapping (between steps 2 and 3)',
      description: [
        'Reads the start of the file uploaded under `storageKey` — its header and at most 10 rows, whatever its size — and answers ' +
          'how it will be read (`delimiter`, `encoding`, `bom`), the `header` and `sampleRows` as read, `rowCount` (exact for a file ' +
          'read to its end, else estimated from its size: `rowCountEstimated`), and `suggestedMapping`: one item per column, its ' +
          '`targetField` (null when nothing fits) with a `confidence` and a `reason` — the field\'s own name, a known synonym in ' +
          'English or Spanish ("Teléfono" → phone_1, "DNI" → identity_document_number), its values\' pattern (E.164 numbers, ' +
          'ISO 4217 codes, dates, emails), or the mapping of the portfolio\'s last completed load. Its non-null pairs form a valid ' +
          '`columnMapping` when the file allows one; `warnings` says what would refuse rows or the mapping.',
        'Nothing is recorded: the key can be previewed again and then loaded (or dry-run) until `expiresAt`, the key\'s expiry. ' +
          '400 `validation_error` naming `storageKey` as enqueue does (not issued for this portfolio, expired, no file, too large, ' +
          'no readable header).',
        LIMITS,
        GUIDE,
      ].join('\n\n'),
      returns: 'ImportPreviewView',
    },
  })
  preview(@Param('id') id: string, @Body() body: PreviewImportDto, @Caller() caller: PublicCaller) {
    if (!isId('pf', id)) throw AppError.notFound('portfolio');
    return this.core.send(ImportsRpc.preview, caller, { portfolioId: id, body });
  }

  @PublicRoute({
    method: 'GET',
    path: 'imports/:id/rejected-rows',
    scope: 'read',
    rpc: ImportsRpc.rejectedRows,
    doc: {
      summary: 'The rows an import refused, as a CSV file to fix and load again',
      description: [
        'Streams `text/csv` in the file\'s own delimiter, UTF-8 with a byte order mark: the file\'s header plus `error_row`, ' +
          '`error_column` and `error_message`, then every refused row (all of them, in file order) as it was in the file — its ' +
          'number (the header is row 1), the columns at fault and every message, joined by `; `. Cells a spreadsheet would run ' +
          'as a formula (starting with `=`, `@`, tab or CR, or `+`/`-` not followed by a number or an E.164 phone) carry a ' +
          'leading apostrophe, which the importer removes: fix the rows and upload the file as it is (the three added columns are ' +
          'ignored unless mapped).',
        'Complete once the import has ended (a dry run\'s too); asked earlier, it holds the rows refused so far. Kept as long ' +
          'as the import. 404 when the import\'s portfolio is outside the key\'s reach.',
        GUIDE,
      ].join('\n\n'),
      media: { type: 'text/csv', description: 'The refused rows as CSV (header line first), streamed.' },
    },
  })
  async rejectedRows(@Param('id') id: string, @Caller() caller: PublicCaller) {
    if (!isId('imp', id)) throw AppError.notFound('import');
    // The first page before the headers: a 404 is still an answer of its own.
    const first = (await this.core.send(ImportsRpc.rejectedRows, caller, { id, afterRow: 0 })).body.data;
    // A completed import's file, written once by the importer, streams from storage at the disk's pace.
    const body = first.file ? await this.storage.openRead(first.file) : Readable.from(this.pages(caller, id, first));
    return new CoreReply(200, body, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${id}-rejected-rows.csv"`,
    });
  }

  /** The file's pages, one RPC each, asked for as the client reads: the gateway holds one page at a time. */
  private async *pages(caller: PublicCaller, id: string, first: RejectedRowsPage): AsyncGenerator<string> {
    let page = first;
    for (;;) {
      yield page.text;
      if (page.nextAfterRow === null) return;
      page = (await this.core.send(ImportsRpc.rejectedRows, caller, { id, afterRow: page.nextAfterRow })).body.data;
    }
  }

  @PublicRoute({
    method: 'GET',
    path: 'imports/:id',
    scope: 'read',
    rpc: ImportsRpc.get,
    doc: {
      summary: 'One import: status and progress (step 4: poll)',
      description: [
        'The import while it is queued, processing and after it ended. 404 when its portfolio is outside the key\'s reach.',
        STATUSES,
        COUNTERS,
        'A load emits no webhook, for its payments either. Poll every few seconds; a completed or failed import no longer changes.',
      ].join('\n\n'),
      returns: 'ImportView',
    },
  })
  get(@Param('id') id: string, @Caller() caller: PublicCaller) {
    if (!isId('imp', id)) throw AppError.notFound('import');
    return this.core.send(ImportsRpc.get, caller, { id });
  }
}
