import { retryAfterSeconds } from './api-error';

/**
 * Automatic retries (docs/adr/0029): only where the spec says a retry is safe and useful.
 * - 429 `rate_limited`: the request was not processed; wait Retry-After (the window's end), then retry.
 * - 503 `service_unavailable`: wait the longer of Retry-After and an exponential backoff with jitter,
 *   for reads and for writes that carry an Idempotency-Key (a write without one might have run).
 * - A network error (no answer at all): the same backoff, under the same condition.
 * Nothing else is retried: other 4xx need a fixed request, and 500/408 are left to the caller.
 * Each attempt sends the same request, Idempotency-Key included, so a write that did run replays.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 disables retrying). */
  maxRetries?: number;
  /** The first backoff step (default 500 ms); step n is baseDelayMs·2ⁿ, jittered down to half of it. */
  baseDelayMs?: number;
  /**
   * The longest wait (default 60 000 ms, one rate-limit window). Backoff is capped to it; an answer
   * asking to wait longer (Retry-After) is not retried but returned (thrown as ApiError).
   */
  maxDelayMs?: number;
  /** How to wait (default: a timer, cut short by the request's AbortSignal). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called before each wait: for logs and metrics. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  reason: 'rate_limited' | 'service_unavailable' | 'network_error';
  request: Request;
  /** The answer being retried (absent for a network error). */
  response?: Response;
  error?: unknown;
}

export const RETRY_DEFAULTS = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 60_000 } as const;

type Fetch = (request: Request) => Promise<Response>;

/** Methods that never change anything: always safe to resend. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether resending `request` cannot do its work twice: a read, or a write with an Idempotency-Key. */
export function isReplayable(request: Request): boolean {
  return SAFE_METHODS.has(request.method.toUpperCase()) || Boolean(request.headers.get('idempotency-key'));
}

/** Exponential backoff with "equal jitter": step n waits between half and all of min(max, base·2ⁿ). */
export function backoffDelay(retryIndex: number, baseDelayMs: number, maxDelayMs: number, random = Math.random): number {
  const step = Math.min(maxDelayMs, baseDelayMs * 2 ** retryIndex);
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * The wait before retrying `response` (the `retryIndex`-th retry, 0-based), or undefined when it
 * must not be retried.
 */
export function retryDelay(response: Response, request: Request, retryIndex: number, options: Required<Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>>): number | undefined {
  const told = retryAfterSeconds(response.headers.get('retry-after'));
  const toldMs = told === undefined ? undefined : told * 1000;
  if (toldMs !== undefined && toldMs > options.maxDelayMs) return undefined;
  const backoff = () => backoffDelay(retryIndex, options.baseDelayMs, options.maxDelayMs);
  if (response.status === 429) return toldMs ?? backoff();
  if (response.status === 503 && isReplayable(request)) return Math.max(toldMs ?? 0, backoff());
  return undefined;
}

/** A fetch that retries per the policy above around `fetchImpl`. */
export function retryingFetch(fetchImpl: Fetch, options: RetryOptions = {}): Fetch {
  const maxRetries = options.maxRetries ?? RETRY_DEFAULTS.maxRetries;
  const delays = { baseDelayMs: options.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs, maxDelayMs: options.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs };
  const sleep = options.sleep ?? abortableSleep;

  return async (request: Request): Promise<Response> => {
    for (let retry = 0; ; retry += 1) {
      const last = retry >= maxRetries;
      let response: Response;
      try {
        // The original stays unread: every attempt sends a copy of the same bytes and headers.
        response = await fetchImpl(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted || !isReplayable(request)) throw error;
        const delayMs = backoffDelay(retry, delays.baseDelayMs, delays.maxDelayMs);
        options.onRetry?.({ retry: retry + 1, delayMs, reason: 'network_error', request, error });
        await sleep(delayMs, request.signal);
        continue;
      }
      const delayMs = last ? undefined : retryDelay(response, request, retry, delays);
      if (delayMs === undefined) return response;
      // Free the connection of the answer we drop.
      await response.body?.cancel().catch(() => undefined);
      options.onRetry?.({ retry: retry + 1, delayMs, reason: response.status === 429 ? 'rate_limited' : 'service_unavailable', request, response });
      await sleep(delayMs, request.signal);
    }
  };
}

/** setTimeout as a promise that rejects with the signal's reason when the caller aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
