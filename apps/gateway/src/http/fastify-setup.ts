import { AppError, ErrorCode, Header, ulid } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { envelope } from '../errors/envelope';
import { PLATFORM_BODY_LIMIT_BYTES } from './body-limits';
import { nulCharacterError, nulCharacterPaths, rejectedBody } from './request-body';

const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Behind a load balancer the caller's X-Request-Id (if well-formed) is kept end to end. */
export function requestIdFor(headers: IncomingHttpHeaders, trustRequestId: boolean): string {
  const incoming = headers['x-request-id'];
  if (trustRequestId && typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming)) return incoming;
  return `req_${ulid()}`;
}

/** Fastify options shared by both listeners. */
export function fastifyOptions(trustRequestId: boolean) {
  return {
    bodyLimit: PLATFORM_BODY_LIMIT_BYTES,
    genReqId: (req: { headers: IncomingHttpHeaders }) => requestIdFor(req.headers, trustRequestId),
    // While draining, our own hook answers 503 in the envelope (configureFastify).
    return503OnClosing: false,
    forceCloseConnections: 'idle' as const,
    // A path Fastify cannot route (undecodable, or a parameter over 100 characters) names no
    // resource that can exist: 404 in the envelope, like any malformed id.
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
      sendEnvelope(reply, String(request.id), AppError.notFound());
    },
  };
}

function sendEnvelope(reply: FastifyReply, requestId: string, error: AppError): void {
  const { status, body } = envelope(error, requestId);
  void reply.header(Header.RequestId, requestId).status(status).send(body);
}

/** Lets the shutdown path tell the listener to refuse new requests while in-flight ones finish. */
export interface Drainable {
  startDraining(): void;
}

/**
 * Request id on every response, our own JSON parser (records the body size for endpoint limits),
 * and one log line per request. Fastify-level errors (parsing, body limit) and unknown routes
 * reach the one exception filter through Nest's error and not-found handlers.
 */
export function configureFastify(app: FastifyInstance, logger: Logger): Drainable {
  let draining = false;
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(Header.RequestId, String(request.id));
    if (!draining) return done();
    void reply.header('connection', 'close');
    sendEnvelope(reply, String(request.id), new AppError(ErrorCode.ServiceUnavailable, 'This instance is shutting down. Retry the request.'));
  });

  app.removeAllContentTypeParsers();
  // Bodies that cannot be accepted are refused after the guards (request-body.ts, RequestInputInterceptor).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
    request.bodyBytes = body.length;
    if (body.length === 0) return done(null, undefined);
    const text = body.toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(null, rejectedBody(AppError.validation('The request body is not valid JSON.')));
    }
    // JSON can only carry NUL escaped, so bodies without the escape need no walk.
    const nulPaths = text.includes('\\u0000') ? nulCharacterPaths(parsed) : [];
    done(null, nulPaths.length ? rejectedBody(nulCharacterError(nulPaths)) : parsed);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
    request.bodyBytes = body.length;
    if (body.length === 0) return done(null, undefined);
    done(null, rejectedBody(AppError.validation('Content-Type must be application/json.')));
  });

  app.addHook('onResponse', (request, reply, done) => {
    logger.info(
      {
        requestId: request.id,
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        apiKeyId: request.caller?.apiKeyId,
      },
      'request',
    );
    done();
  });
  return { startDraining: () => void (draining = true) };
}
