import { Header } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import type { FastifyReply } from 'fastify';
import type { IncomingHttpHeaders, Server } from 'node:http';

/**
 * The platform-wide ceiling (spec: 6 MB). Bodies above it are refused before parsing with the
 * platform's own 413 shape — a single `Message` field, no code or requestId — as the spec says.
 * Endpoint limits below it (5 MB for the debtor batch) answer in the error envelope.
 */
export const PLATFORM_BODY_LIMIT_BYTES = 6 * 1024 * 1024;

const PLATFORM_TOO_LARGE_BODY = JSON.stringify({ Message: `Request must be smaller than ${PLATFORM_BODY_LIMIT_BYTES} bytes for the API` });

export function sendPlatformTooLarge(reply: FastifyReply): void {
  void reply.status(413).header('content-type', 'application/json; charset=utf-8').send(PLATFORM_TOO_LARGE_BODY);
}

/**
 * A client that sends `Expect: 100-continue` (curl does for large bodies) learns of the 413
 * before uploading: an over-limit Content-Length is refused instead of being told to continue.
 * Everything else continues into Fastify as usual. (A proxy in front, like the compose stack's
 * nginx, answers `100 Continue` itself: there the 413 comes after the upload.)
 */
export function refuseOversizedBodiesBeforeUpload(server: Server, requestIdOf: (headers: IncomingHttpHeaders) => string, logger: Logger): void {
  server.on('checkContinue', (req, res) => {
    if (Number(req.headers['content-length']) > PLATFORM_BODY_LIMIT_BYTES) {
      const requestId = requestIdOf(req.headers);
      res.writeHead(413, {
        'content-type': 'application/json; charset=utf-8',
        [Header.RequestId]: requestId,
        connection: 'close',
      });
      res.end(PLATFORM_TOO_LARGE_BODY);
      logger.info({ requestId, method: req.method, route: 'unmatched', status: 413, ms: 0 }, 'request');
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
}
