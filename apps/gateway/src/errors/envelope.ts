import { AppError, ERROR_HTTP_STATUS, ErrorCode, ErrorEnvelope } from '@dc/contracts';

export function envelope(error: AppError, requestId: string): { status: number; body: ErrorEnvelope } {
  return {
    status: ERROR_HTTP_STATUS[error.code],
    body: {
      error: {
        code: error.code,
        message: error.message,
        requestId,
        ...(error.issues?.length ? { issues: error.issues } : {}),
      },
    },
  };
}

export const INTERNAL_ERROR = new AppError(
  ErrorCode.InternalError,
  'An unexpected error occurred. Retry later; if it persists, contact support with the request id.',
);

/**
 * The Retry-After seconds of an error answer: the error's own (rate limit, a shed request), else 1 for
 * every 503 — api-core unreachable, a NATS timeout, Redis unavailable for idempotency — so a client
 * always knows when to retry a 503 (found by the fault suite, docs/adr/0028).
 */
export function retryAfterOf(error: AppError): number | undefined {
  return error.retryAfterSeconds ?? (ERROR_HTTP_STATUS[error.code] === 503 ? 1 : undefined);
}
