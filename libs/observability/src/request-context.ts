import { AsyncLocalStorage } from 'node:async_hooks';

/** The request id of the work in progress, carried from the gateway through NATS and job data. */
export interface RequestContext {
  requestId: string;
  /** When the caller stops waiting (epoch ms), as sent by the gateway; absent for other work. */
  deadline?: number;
  /** What else every log line of this work names (a job: jobId, importId or deliveryId). */
  fields?: Readonly<Record<string, string>>;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * Runs a queue job's processing in its context: the request id that caused it (carried in the job
 * data) and the job's own ids, on every log line written meanwhile.
 */
export function runInJobContext<T>(requestId: string | null | undefined, fields: Record<string, string>, fn: () => T): T {
  return storage.run({ requestId: requestId || `job_${fields.jobId ?? 'unknown'}`, fields }, fn);
}

/** The log fields of the work in progress: its request id and, for a job, the job's ids. */
export function currentLogFields(): Record<string, string> {
  const context = storage.getStore();
  if (!context) return {};
  return context.fields ? { requestId: context.requestId, ...context.fields } : { requestId: context.requestId };
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function currentDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}
