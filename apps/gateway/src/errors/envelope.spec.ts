import { AppError, ErrorCode } from '@dc/contracts';
import { retryAfterOf } from './envelope';

describe('retryAfterOf', () => {
  it('gives every 503 a Retry-After: the error own value, else 1 s', () => {
    expect(retryAfterOf(new AppError(ErrorCode.ServiceUnavailable, 'Service temporarily unavailable: no responders. Retry later.'))).toBe(1);
    expect(retryAfterOf(new AppError(ErrorCode.ServiceUnavailable, 'shed', undefined, 3))).toBe(3);
  });

  it('gives none to errors a retry does not fix', () => {
    expect(retryAfterOf(AppError.notFound())).toBeUndefined();
    expect(retryAfterOf(new AppError(ErrorCode.InternalError, 'boom'))).toBeUndefined();
  });
});
