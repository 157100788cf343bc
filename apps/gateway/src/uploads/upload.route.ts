import { AppError, ErrorCode, Header } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import { FileTooLargeError, isStorageKey, LOCAL_UPLOAD_CONTENT_TYPE, LOCAL_UPLOAD_PATH, LocalDiskStorage, verifyUpload } from '@dc/storage';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { envelope, INTERNAL_ERROR } from '../errors/envelope';
import { whileUploading } from './upload-connections';

export interface UploadRouteSettings {
  storage: LocalDiskStorage;
  /** STORAGE_SIGNING_KEY. */
  signingKey: Buffer;
  /** IMPORT_MAX_FILE_BYTES. */
  maxFileBytes: number;
  logger: Logger;
}

const UPLOAD_URL_ROUTE = 'POST /public/v1/portfolios/{portfolioId}/imports/upload-url';
const EXPIRES = /^\d{1,12}$/;

/**
 * `PUT /public/uploads/<key>?expires=&signature=`: the local storage driver's upload URL
 * (docs/adr/0021). No API key: the signature, made by api-core with STORAGE_SIGNING_KEY when it
 * answered upload-url, is the credential. Checked in this order, each before the body is read:
 * signature (403), expiry (403), key (404), Content-Type (400), declared size (413); then the body
 * is streamed to a temporary file and renamed over the key, never held in memory, and refused (413)
 * as soon as it passes IMPORT_MAX_FILE_BYTES. 200 with an empty body, as S3 answers a PUT.
 * Registered only with STORAGE_DRIVER=local; otherwise the path is an unknown route (404).
 */
export function registerUploadRoute(app: FastifyInstance, settings: UploadRouteSettings): void {
  void app.register(async (scope) => {
    // This context alone hands any body through unread (the JSON parser and the 6 MB limit stay
    // on every other route): the handler checks the URL and headers, then streams it to disk.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.put(`${LOCAL_UPLOAD_PATH}*`, (request, reply) => handleUpload(request, reply, settings));
  });
}

async function handleUpload(request: FastifyRequest, reply: FastifyReply, settings: UploadRouteSettings): Promise<FastifyReply> {
  const started = performance.now();
  const key = keyOf(request.raw.url ?? '');
  const query = request.query as Record<string, unknown>;
  const expires = typeof query.expires === 'string' && EXPIRES.test(query.expires) ? Number(query.expires) : Number.NaN;
  const signature = typeof query.signature === 'string' ? query.signature : '';

  if (key === null || !verifyUpload(key, expires, signature, settings.signingKey)) {
    return refuse(reply, request, new AppError(ErrorCode.Forbidden, 'The upload URL is not valid: its signature does not match. Use the URL exactly as upload-url returned it.'));
  }
  if (expires * 1000 < Date.now()) {
    return refuse(
      reply,
      request,
      new AppError(ErrorCode.Forbidden, `The upload URL expired at ${new Date(expires * 1000).toISOString()}. Get a new one from ${UPLOAD_URL_ROUTE}.`),
    );
  }
  if (!isStorageKey(key)) {
    // Only a holder of the signing key could have signed it: no file can be stored there.
    return refuse(reply, request, new AppError(ErrorCode.NotFound, 'No file can be stored under this key.'));
  }
  if (mediaType(request.headers['content-type']) !== LOCAL_UPLOAD_CONTENT_TYPE) {
    return refuse(reply, request, AppError.validation(`Content-Type must be ${LOCAL_UPLOAD_CONTENT_TYPE}, the header upload-url returned with the URL.`));
  }
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > settings.maxFileBytes) return refuse(reply, request, tooLarge(settings.maxFileBytes));

  // A client that waits for `100 Continue` sends the file only now (upload-connections.ts).
  if (/100-continue/i.test(request.headers.expect ?? '')) reply.raw.writeContinue();
  const body = (request.body as Readable | undefined) ?? request.raw;
  try {
    const { sizeBytes } = await whileUploading(request.raw.socket, () => settings.storage.write(key, body, settings.maxFileBytes));
    settings.logger.info({ requestId: request.id, storageKey: key, bytes: sizeBytes, ms: Math.round(performance.now() - started) }, 'upload stored');
    return reply.status(200).send();
  } catch (err) {
    if (err instanceof FileTooLargeError) return refuse(reply, request, tooLarge(settings.maxFileBytes));
    if (request.raw.destroyed || request.raw.readableAborted) {
      settings.logger.warn({ requestId: request.id, storageKey: key, ms: Math.round(performance.now() - started) }, 'upload interrupted by the client');
      return refuse(reply, request, AppError.validation('The upload was interrupted before the whole file arrived.'));
    }
    settings.logger.error({ requestId: request.id, storageKey: key, err }, 'upload could not be stored');
    return refuse(reply, request, INTERNAL_ERROR);
  }
}

/** The key from the raw path: one URL-encoded segment (as upload-url gives it) or plain segments. */
function keyOf(url: string): string | null {
  const path = url.split('?', 1)[0].slice(LOCAL_UPLOAD_PATH.length);
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0].trim().toLowerCase();
}

function tooLarge(maxFileBytes: number): AppError {
  return new AppError(ErrorCode.PayloadTooLarge, `The file is larger than the limit of ${maxFileBytes} bytes.`);
}

/** The error envelope, as every gateway error (the route answers itself: it is not a Nest route). */
function refuse(reply: FastifyReply, request: FastifyRequest, error: AppError): FastifyReply {
  const { status, body } = envelope(error, String(request.id));
  return reply.status(status).header(Header.RequestId, String(request.id)).header('content-type', 'application/json; charset=utf-8').send(body);
}
