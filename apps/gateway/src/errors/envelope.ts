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
