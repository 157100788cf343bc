import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { AppError, ErrorCode, Header } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LOGGER } from '../tokens';
import { envelope, INTERNAL_ERROR, retryAfterOf } from './envelope';
import { PLATFORM_BODY_LIMIT_BYTES, sendPlatformTooLarge } from '../http/body-limits';

/**
 * The one place where failures become HTTP responses: every 4xx/5xx leaves in the error envelope
 * with the request id. Unknown errors are logged with their stack and answered with a bare
 * internal_error, so nothing internal reaches a client.
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (isPlatformTooLarge(exception)) {
      sendPlatformTooLarge(reply);
      return;
    }
    const error = toAppError(exception);
    if (error === INTERNAL_ERROR) this.logger.error({ requestId: request.id, err: exception, url: request.url }, 'unhandled error');
    const { status, body } = envelope(error, String(request.id));
    // Usually set by the onRequest hook already; not on Fastify's fallback 404 (an undecodable path
    // with a method no route has), which skips the hooks.
    void reply.header(Header.RequestId, String(request.id));
    const retryAfter = retryAfterOf(error);
    if (retryAfter !== undefined) void reply.header(Header.RetryAfter, retryAfter);
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}

export function toAppError(exception: unknown): AppError {
  if (exception instanceof AppError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return new AppError(ErrorCode.NotFound, 'No such route. Paths start with /public/v1; see the API reference at /docs.');
    if (status === 405) return new AppError(ErrorCode.NotFound, 'No such route for this method.');
    if (status < 500) return AppError.validation(messageOf(exception));
  }
  const fastifyError = exception as { statusCode?: number; code?: string; message?: string };
  if (fastifyError?.statusCode && fastifyError.statusCode < 500) {
    if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return AppError.validation('Content-Type must be application/json.');
    }
    return AppError.validation(`The request is not valid: ${fastifyError.message ?? 'malformed request'}.`);
  }
  return INTERNAL_ERROR;
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse() as { message?: unknown } | string;
  const message = typeof response === 'string' ? response : response.message;
  return Array.isArray(message) ? message.join('; ') : String(message ?? exception.message);
}

function isPlatformTooLarge(exception: unknown): boolean {
  // Our own size limits throw AppError(payload_too_large); a bare 413 comes from the platform limit.
  if (exception instanceof HttpException) return exception.getStatus() === 413;
  const e = exception as { code?: string; statusCode?: number };
  return e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e?.statusCode === 413;
}

export { PLATFORM_BODY_LIMIT_BYTES };
