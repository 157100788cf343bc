import type { JobsOptions } from 'bullmq';

/**
 * Options of every import job (queue IMPORTS_QUEUE, job name IMPORT_JOB_NAME, jobId = the import
 * id, docs/adr/0022): api-core adds it after the imports row is committed, and the importer adds
 * it again for an unfinished import that has none (a crash between that commit and the add).
 * Removed once it ends (the imports row keeps the outcome). A run that could not reach Postgres,
 * Redis or the storage ends in a retry 5 s later, without end: where the import resumes is decided
 * by the imports row (its phase and checkpoints), not by BullMQ's attempt count.
 */
export const IMPORT_JOB_NAME = 'import';
export const IMPORT_JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: true,
  attempts: 1_000_000,
  backoff: { type: 'fixed', delay: 5_000 },
} as const satisfies JobsOptions;
