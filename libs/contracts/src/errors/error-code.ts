/**
 * The closed list of `error.code` values of the public and operator APIs, and the HTTP status of
 * each. The gateway's exception filter is the only place that turns these into responses.
 */
export enum ErrorCode {
  ValidationError = 'validation_error',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  OrganizationInactive = 'organization_inactive',
  NotFound = 'not_found',
  IdempotencyConflict = 'idempotency_conflict',
  InvalidStateTransition = 'invalid_state_transition',
  PayloadTooLarge = 'payload_too_large',
  RateLimited = 'rate_limited',
  /** The request was not received within the listener's request timeout (a stalled upload). */
  RequestTimeout = 'request_timeout',
  InternalError = 'internal_error',
  ServiceUnavailable = 'service_unavailable',
}

export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.ValidationError]: 400,
  [ErrorCode.Unauthorized]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.OrganizationInactive]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.IdempotencyConflict]: 409,
  [ErrorCode.InvalidStateTransition]: 409,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.RequestTimeout]: 408,
  [ErrorCode.InternalError]: 500,
  [ErrorCode.ServiceUnavailable]: 503,
};

export const ERROR_CODES: readonly ErrorCode[] = Object.values(ErrorCode);
