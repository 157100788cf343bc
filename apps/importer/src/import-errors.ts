import { CsvFileError } from '@dc/imports';

/**
 * The file's fault (it cannot be parsed, it is gone, its header lost a mapped column): the import
 * ends `failed` with this message as failureReason. Anything else that stops a run (Postgres,
 * Redis or the storage unreachable, a statement cut off) is retried later from the checkpoints.
 */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFileError';
  }
}

/** The importer is stopping: the run ends after its current chunk and the job goes back to the queue. */
export class ImportInterrupted extends Error {
  constructor() {
    super('the importer is stopping');
    this.name = 'ImportInterrupted';
  }
}

/** A replace whose every row was refused: nothing is swapped (the portfolio is never emptied by mistake). */
export class NothingToReplaceError extends ImportFileError {
  constructor(
    readonly errorDetails: string[],
    readonly errors: number,
  ) {
    super('replace loaded no row (every row was refused, or the file has none): the portfolio was left as it was');
    this.name = 'NothingToReplaceError';
  }
}

/**
 * Another organization's import waits with an earlier place (docs/adr/0043): the run ends after its
 * current chunk, cleanly, and the job goes back to the queue behind it.
 */
export class ImportYielded extends ImportInterrupted {
  constructor() {
    super();
    this.message = 'the import yields to another organization';
    this.name = 'ImportYielded';
  }
}

/** The import's organization already runs IMPORT_MAX_RUNNING_PER_ORGANIZATION imports: the job is postponed. */
export class OrganizationBusy extends Error {
  constructor() {
    super("the organization's share of the importers is in use");
    this.name = 'OrganizationBusy';
  }
}

/** An operator cancelled the import (its row is already failed, reason `cancelled`): the run stops, its current chunk rolled back. */
export class ImportCancelled extends Error {
  constructor() {
    super('the import was cancelled');
    this.name = 'ImportCancelled';
  }
}

/**
 * Postgres refused a value (class 22, data exception: a character or number it cannot store) or a
 * row (class 23, integrity constraint): what the file holds cannot be loaded as it is, and running
 * it again would meet the same refusal.
 */
export function isDataError(err: unknown): err is Error & { code: string } {
  const code = (err as { code?: unknown })?.code;
  return err instanceof Error && typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

export function isFileError(err: unknown): err is ImportFileError | CsvFileError {
  return err instanceof ImportFileError || err instanceof CsvFileError;
}
