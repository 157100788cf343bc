/** The BullMQ queue of CSV imports: filled by api-core at enqueue, drained by the importer. */
export const IMPORTS_QUEUE = 'imports';

/** Everything else (file, mapping, mode, progress) is read from the imports row when the job runs. */
export interface ImportJob {
  importId: string;
  /** The import's organization: an importer yields to another organization's waiting import (docs/adr/0043). Absent in jobs enqueued before. */
  organizationId?: string;
  /** The request that created the import (absent for a job the repair enqueued): the worker logs under it. */
  requestId?: string;
}
