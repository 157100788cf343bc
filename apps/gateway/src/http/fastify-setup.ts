import { AppError, ErrorCode, Header, ulid } from '@dc/contracts';
import { runWithRequestContext, type Logger } from '@dc/observability';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IncomingHttpHeaders, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { envelope, retryAfterOf } from '../errors/envelope';
import type { GatewayMetrics, ListenerName } from '../metrics/gateway-metrics';
import { PLATFORM_BODY_LIMIT_BYTES } from './body-limits';
import { lingerOverUnreadBody } from './lingering-close';
import { parseJsonBody, rejectedBody } from './request-body';

const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Behind a load balancer the caller's X-Request-Id (if well-formed) is kept end to end. */
export function requestIdFor(headers: IncomingHttpHeaders, trustRequestId: boolean): string {
  const incoming = headers['x-request-id'];
  if (trustRequestId && typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming)) return incoming;
  return `req_${ulid()}`;
}

/** The gateway settings the listeners are built from (AppConfig['gateway']). */
export interface ListenerSettings {
  trustRequestId: boolean;
  trustProxy: boolean | number | string;
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number };
}

/** Fastify options shared by both listeners. Timeouts: README (Configure) and docs/adr/0014. */
export function fastifyOptions(settings: ListenerSettings, logger: Logger) {
  const { http } = settings;
  return {
    bodyLimit: PLATFORM_BODY_LIMIT_BYTES,
    genReqId: (req: { headers: IncomingHttpHeaders }) => requestIdFor(req.headers, settings.trustRequestId),
    trustProxy: settings.trustProxy,
    // Whole request (headers and body) received within requestTimeout, headers within headersTimeout;
    // Node checks both every second (its default is every 30 s).
    requestTimeout: http.requestTimeoutMs,
    http: { headersTimeout: http.headersTimeoutMs, connectionsCheckingInterval: 1_000 },
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionTimeout: http.idleTimeoutMs,
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket, settings.trustRequestId, logger),
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

const CLIENT_ERRORS: Record<string, AppError> = {
  ERR_HTTP_REQUEST_TIMEOUT: new AppError(ErrorCode.RequestTimeout, 'The request was not received in time: send the headers and the whole body without pausing.'),
  HPE_HEADER_OVERFLOW: AppError.validation('The request headers are too large.'),
};

/**
 * A connection-level failure Node reports before any request exists (a request not received within
 * requestTimeout, headers over the size limit, malformed HTTP): logged, answered in the envelope
 * when the socket can still take it, then closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket, trustRequestId: boolean, logger: Logger): void {
  // The client hung up (often mid-upload, once it had its answer): nothing to answer or report.
  if (error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE' || socket.destroyed) {
    socket.destroy();
    return;
  }
  const requestId = requestIdFor({}, trustRequestId);
  const { status, body } = envelope((error.code && CLIENT_ERRORS[error.code]) || AppError.validation('The request is not valid HTTP.'), requestId);
  logger.warn({ requestId, status, code: error.code, remoteAddress: socket.remoteAddress, bytesRead: socket.bytesRead }, 'client connection cut off');
  if (socket.writable && !(socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\n${Header.RequestId}: ${requestId}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy();
}

function sendEnvelope(reply: FastifyReply, requestId: string, error: AppError): void {
  const { status, body } = envelope(error, requestId);
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) void reply.header(Header.RetryAfter, retryAfter);
  void reply.header(Header.RequestId, requestId).status(status).send(body);
}

/** Lets the shutdown path tell the listener to refuse new requests while in-flight ones finish. */
export interface Drainable {
  startDraining(): void;
}

/** Where a listener's requests are counted (http_request_duration_seconds), under its name. */
export interface ListenerMetrics {
  metrics: GatewayMetrics;
  listener: ListenerName;
}

/**
 * Request id on every response and in every log line written while the request is handled (the
 * request context), our own JSON parser (records the body size for endpoint limits), one log line
 * and one latency observation per request. Fastify-level errors (parsing, body limit) and unknown
 * routes reach the one exception filter through Nest's error and not-found handlers.
 */
export function configureFastify(app: FastifyInstance, logger: Logger, observed?: ListenerMetrics): Drainable {
  let draining = false;
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(Header.RequestId, String(request.id));
    // The rest of the request (body parsing included: request-observation.spec.ts) runs inside its
    // context: every log line written meanwhile carries its requestId.
    if (!draining) return runWithRequestContext({ requestId: String(request.id) }, done);
    void reply.header('connection', 'close');
    sendEnvelope(reply, String(request.id), new AppError(ErrorCode.ServiceUnavailable, 'This instance is shutting down. Retry the request.'));
  });

  app.removeAllContentTypeParsers();
  // Bodies that cannot be accepted are refused after the guards (request-body.ts, RequestInputGuard).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, guarded(parseJsonBody));
  app.addContentTypeParser('*', { parseAs: 'buffer' }, guarded(() => rejectedBody(AppError.validation('Content-Type must be application/json.'))));

  // A connection silent for HTTP_IDLE_TIMEOUT_MS (a client that stopped reading or writing) is closed.
  app.server.on('timeout', (socket: Socket) => {
    logger.warn({ remoteAddress: socket.remoteAddress, bytesRead: socket.bytesRead }, 'idle connection closed');
    socket.destroy();
  });

  // An answer given before the body was read (413, 401) must reach the client: read the rest.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!draining) lingerOverUnreadBody(request.raw, reply);
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const elapsedMs = reply.elapsedTime;
    observed?.metrics.observeRequest(observed.listener, request.method, route, reply.statusCode, elapsedMs / 1000);
    logger.info(
      {
        requestId: request.id,
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(elapsedMs * 10) / 10,
        apiKeyId: request.caller?.apiKeyId,
      },
      'request',
    );
    done();
  });
  return { startDraining: () => void (draining = true) };
}

type BodyParser = (request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => void;

/**
 * Records the body size for endpoint limits and treats an empty body as none; an exception in
 * parsing becomes an error reply (the envelope), never an uncaught one.
 */
export function guarded(parse: (body: Buffer) => unknown): BodyParser {
  return (request, body, done) => {
    request.bodyBytes = body.length;
    if (body.length === 0) return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = parse(body);
    } catch (err) {
      return done(err instanceof Error ? err : new Error(String(err)));
    }
    done(null, parsed);
  };
}
