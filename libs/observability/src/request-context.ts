import { AsyncLocalStorage } from 'node:async_hooks';

/** The request id of the work in progress, carried from the gateway through NATS and job data. */
export interface RequestContext {
  requestId: string;
  /** When the caller stops waiting (epoch ms), as sent by the gateway; absent for other work. */
  deadline?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function currentDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}
