import type { ErrorCode, ErrorIssue } from './types';

/** A code outside the envelope's list: the answer was not the API's envelope (e.g. a proxy's page). */
export type UnexpectedResponseCode = 'unexpected_response';

/**
 * A 4xx or 5xx answer of the API, read from its envelope (spec: Errors). Branch on `code`; `message`
 * is for humans. Thrown by the client's methods once its retries (429, 503) are used up.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The envelope's code, a closed list; `unexpected_response` when the body was not an envelope. */
  readonly code: ErrorCode | UnexpectedResponseCode;
  /** Per-field problems that may accompany `validation_error`. */
  readonly issues: ErrorIssue[];
  /** The response's X-Request-Id (quote it to support). */
  readonly requestId: string | undefined;
  /** Retry-After of the answer, in seconds (429, 503), when given. */
  readonly retryAfter: number | undefined;
  /** The Idempotency-Key the request carried: reuse it to retry the same write by hand. */
  readonly idempotencyKey: string | undefined;
  /** The body as received (the envelope, or the text when it was not JSON). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: ErrorCode | UnexpectedResponseCode;
    message: string;
    issues?: ErrorIssue[];
    requestId?: string;
    retryAfter?: number;
    idempotencyKey?: string;
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.issues = init.issues ?? [];
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.idempotencyKey = init.idempotencyKey;
    this.body = init.body;
  }

  /** The error of a non-2xx `response` whose body openapi-fetch read as `body` (parsed JSON or text). */
  static fromResponse(response: Response, body: unknown, request?: Request): ApiError {
    const envelope = isEnvelope(body) ? body.error : undefined;
    const headerId = response.headers.get('x-request-id') ?? undefined;
    return new ApiError({
      status: response.status,
      // The platform refuses a body over 6 MB before the API sees it, with {"Message": …}: the spec says
      // to treat it as payload_too_large.
      code: envelope?.code ?? (response.status === 413 ? 'payload_too_large' : 'unexpected_response'),
      message: envelope?.message ?? `HTTP ${response.status}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`,
      issues: envelope?.issues,
      requestId: headerId ?? envelope?.requestId,
      retryAfter: retryAfterSeconds(response.headers.get('retry-after')),
      idempotencyKey: request?.headers.get('idempotency-key') || undefined,
      body,
    });
  }
}

/** True when `error` is an ApiError (of one of `codes`, when given): `if (isApiError(e, 'not_found'))`. */
export function isApiError(error: unknown, ...codes: (ErrorCode | UnexpectedResponseCode)[]): error is ApiError {
  return error instanceof ApiError && (codes.length === 0 || codes.includes(error.code));
}

interface EnvelopeLike {
  error: { code: ErrorCode; message: string; requestId?: string; issues?: ErrorIssue[] };
}

function isEnvelope(body: unknown): body is EnvelopeLike {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string';
}

/** Retry-After in seconds: a whole number of seconds, or an HTTP date (seconds from now, at least 0). */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
