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

export function isFileError(err: unknown): err is ImportFileError | CsvFileError {
  return err instanceof ImportFileError || err instanceof CsvFileError;
}
