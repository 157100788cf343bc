import type { JobsOptions } from 'bullmq';

/**
 * Options of every import job (queue IMPORTS_QUEUE, job name IMPORT_JOB_NAME, jobId = the import
 * id, docs/adr/0022): api-core adds it after the imports row is committed, and the importer adds
 * it again for an unfinished import that has none (a crash between that commit and the add).
 * Removed once it ends (the imports row keeps the outcome). A run that could not reach Postgres,
 * Redis or the storage ends in a retry later: where the import resumes is decided by the imports
 * row (its phase and checkpoints), and how often by its `attempts` (IMPORT_MAX_ATTEMPTS), not by
 * BullMQ's attempt count (docs/adr/0043).
 */
export const IMPORT_JOB_NAME = 'import';
export const IMPORT_JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: true,
  attempts: 1_000_000,
  backoff: { type: 'fixed', delay: 5_000 },
} as const satisfies JobsOptions;

/** BullMQ's largest job priority. */
const MAX_PRIORITY = 2_097_152;

/**
 * An import job's priority (1 runs first): its place among its organization's unfinished imports,
 * oldest first. Every organization's oldest import comes before any organization's second, so a
 * tenant's backlog never holds another tenant's next import behind it (docs/adr/0043).
 */
export function importJobPriority(placeInOrganization: number): number {
  return Math.min(Math.max(1, Math.floor(placeInOrganization)), MAX_PRIORITY);
}
