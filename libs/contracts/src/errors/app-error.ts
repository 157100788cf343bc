import { ErrorCode } from './error-code';

/** One entry of `error.issues`: what is wrong and where (`debtors[3].debts[0].currency`). */
export interface ErrorIssue {
  message: string;
  path: string;
}

/** The body of every 4xx/5xx response. */
export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    requestId: string;
    issues?: ErrorIssue[];
  };
}

/**
 * A failure that maps to one `ErrorCode`. Thrown anywhere; the gateway's filter renders it, and
 * api-core converts it into a typed RPC reply (exception classes do not survive the broker hop).
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: ErrorIssue[],
    /** Sent as `Retry-After` (seconds): the request was not run and may be retried after this long. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }

  static notFound(what = 'resource'): AppError {
    return new AppError(ErrorCode.NotFound, `The ${what} does not exist or is not visible to this API key.`);
  }

  static validation(message: string, issues?: ErrorIssue[]): AppError {
    return new AppError(ErrorCode.ValidationError, message, issues);
  }
}
