import { sleep } from '../faults/load';

/** One answer as a tenant's client saw it (bodies are not kept). */
export interface TenantAnswer {
  kind: string;
  sentAt: number;
  ms: number;
  /** HTTP status; 0: no answer (refused, reset or past the client's 30 s). */
  status: number;
  /** Envelope code of an error answer. */
  code?: string;
  /** X-Request-Id of the answer: its lines in the services' logs. */
  requestId?: string;
}

/** Calls of one API key to the public API (127.0.0.1), every answer recorded. */
export class TenantApi {
  readonly answers: TenantAnswer[] = [];

  constructor(
    private readonly publicUrl: string,
    readonly key: string,
  ) {}

  async send(kind: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TenantAnswer & { body?: any }> {
    const sentAt = Date.now();
    let status = 0;
    let parsed: any;
    let requestId: string | undefined;
    try {
      const res = await fetch(`${this.publicUrl}/public/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      status = res.status;
      requestId = res.headers.get('x-request-id') ?? undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = text;
      }
    } catch {
      status = 0;
    }
    const answer: TenantAnswer = { kind, sentAt, ms: Date.now() - sentAt, status, requestId, ...(typeof parsed?.error?.code === 'string' ? { code: parsed.error.code } : {}) };
    this.answers.push(answer);
    return { ...answer, body: parsed };
  }
}

/**
 * Runs `step` every `intervalMs` (a closed loop: one call at a time, the next due `intervalMs` after
 * the previous one started) until it has run `count` times, `untilMs` has come or `stopped()` says so.
 * Answers how many times it ran.
 */
export async function paced(intervalMs: number, count: number, untilMs: number, stopped: () => boolean, step: (i: number) => Promise<unknown>): Promise<number> {
  let i = 0;
  for (; i < count && Date.now() < untilMs && !stopped(); i += 1) {
    const next = Date.now() + intervalMs;
    await step(i);
    await sleep(Math.min(Math.max(0, next - Date.now()), Math.max(0, untilMs - Date.now())));
  }
  return i;
}

/** The q-quantile (0..1) of `values` by the nearest-rank method; NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** `{ "503 service_unavailable": 2 }` of the answers whose status is not one of `expected`. */
export function unexpected(answers: readonly TenantAnswer[], expected: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    if (expected.includes(a.status)) continue;
    const label = `${a.kind} ${a.status || 'no answer'}${a.code ? ` ${a.code}` : ''}`;
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}
