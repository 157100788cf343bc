/**
 * The mixed load of the fault suite (docs/adr/0028): clients that behave as the spec tells them to —
 * retry a 503 or 429 after Retry-After, retry a lost answer with the same Idempotency-Key (batches) or
 * the same externalId (payments) until it succeeds — and record every attempt, so "lost" and
 * "duplicated" are measured after the retries.
 */

export type OpKind = 'read' | 'batch' | 'payment' | 'import';

/** One HTTP attempt as the client saw it. */
export interface Attempt {
  kind: OpKind;
  sentAt: number;
  ms: number;
  /** HTTP status; 0: no answer (connection refused or reset); -1: the client gave up (a hang). */
  status: number;
  /** Envelope code of an error answer. */
  code?: string;
  /** Why the answer breaks the spec (not an envelope, a code that must not occur here, no Retry-After). */
  violation?: string;
}

export interface Limits {
  /** The longest a plain request may take (ADR 0014: NATS request timeout + Redis command timeout + margin). */
  plainMs: number;
  /** The longest a request with an Idempotency-Key may take (wait for an in-progress claim + the request itself). */
  idempotentMs: number;
}

export interface LoadAnswer {
  status: number;
  headers: Headers | undefined;
  body: any;
}

const RETRYABLE_CODES: Record<number, string> = { 503: 'service_unavailable', 429: 'rate_limited' };

/** Every attempt of one phase, and what its clients were told. */
export class AttemptLog {
  readonly attempts: Attempt[] = [];

  constructor(readonly limits: Limits) {}

  /**
   * One request. Never throws: a refused connection is status 0, a request still unanswered at its
   * bound + 10 s is abandoned as status -1 (counted as a hang either way once over the bound).
   */
  async send(kind: OpKind, url: string, init: RequestInit & { idempotent?: boolean }, allowedConflict = false): Promise<LoadAnswer> {
    const bound = init.idempotent ? this.limits.idempotentMs : this.limits.plainMs;
    const sentAt = Date.now();
    const attempt: Attempt = { kind, sentAt, ms: 0, status: 0 };
    let answer: LoadAnswer = { status: 0, headers: undefined, body: undefined };
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(bound + 10_000) });
      const text = await res.text();
      let body: any = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // kept as text; judged below
      }
      answer = { status: res.status, headers: res.headers, body };
      attempt.status = res.status;
      if (res.status >= 400) {
        const error = body?.error;
        if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || typeof error.requestId !== 'string') {
          attempt.violation = `${res.status} without the error envelope: ${String(text).slice(0, 200)}`;
        } else {
          attempt.code = error.code;
          const expected = RETRYABLE_CODES[res.status];
          if (expected !== undefined) {
            if (error.code !== expected) attempt.violation = `${res.status} ${error.code}`;
            else if (!/^\d+$/.test(res.headers.get('retry-after') ?? '')) attempt.violation = `${res.status} ${error.code} without Retry-After`;
          } else if (!(res.status === 409 && error.code === 'idempotency_conflict' && allowedConflict)) {
            attempt.violation = `${res.status} ${error.code}: ${String(error.message)}`;
          }
        }
      }
    } catch (err) {
      const name = (err as Error).name;
      attempt.status = name === 'TimeoutError' || name === 'AbortError' ? -1 : 0;
    }
    attempt.ms = Date.now() - sentAt;
    this.attempts.push(attempt);
    return answer;
  }

  bound(attempt: Attempt): number {
    return attempt.kind === 'batch' ? this.limits.idempotentMs : this.limits.plainMs;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long to wait before the next attempt: Retry-After when given, else a short back-off. */
export function retryDelay(answer: LoadAnswer): number {
  const after = Number(answer.headers?.get('retry-after') ?? NaN);
  return Number.isFinite(after) ? Math.max(after, 0.2) * 1000 : 250;
}

export interface SentOp {
  key: string;
  /** The client had its success answer (after retries). */
  acknowledged: boolean;
  /** Gave up: the op's deadline passed without a success answer. */
  abandoned?: string;
  /** Ids learnt from the success answer. */
  ids?: string[];
  /** Batch: a success answer that was not a replay after an earlier attempt had been sent (a second run). */
  reruns?: number;
}
