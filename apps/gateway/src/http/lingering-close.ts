import type { FastifyReply } from 'fastify';
import type { IncomingMessage } from 'node:http';

/** How much of an unread body is read and discarded after an early answer, and for how long. */
export const LINGER_LIMITS = { maxBytes: 16 * 1024 * 1024, maxMs: 15_000 };

/**
 * Makes an answer given before the body was read (413 on Content-Length, 401 before parsing)
 * readable by clients that write the whole body before they read — nearly all of them. Closing
 * at once, as Fastify does with `Connection: close`, makes the kernel reset the connection while
 * the client still writes, and the client reports EPIPE instead of the answer.
 *
 * Like nginx's lingering close, the rest of the body is read and discarded: the connection is
 * kept, so Node itself drains the unread body (IncomingMessage `_dump`) before the next request.
 * A body declared over `maxBytes` is not worth reading (the connection closes as before); one that
 * goes on past `maxBytes` or `maxMs` (chunked, or slow) gets its connection destroyed.
 */
export function lingerOverUnreadBody(request: IncomingMessage, reply: FastifyReply, limits = LINGER_LIMITS): void {
  if (request.complete || request.destroyed) return;
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3): nothing to read.
  if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) return;
  if (Number(request.headers['content-length']) > limits.maxBytes) return;
  reply.removeHeader('connection');
  const socket = request.socket;
  const startBytes = socket.bytesRead;
  const startedAt = Date.now();
  const timer = setInterval(() => {
    if (request.complete) return clearInterval(timer);
    if (socket.bytesRead - startBytes > limits.maxBytes || Date.now() - startedAt > limits.maxMs) {
      clearInterval(timer);
      // The request's destroy() destroys its socket. Not socket.destroy(): an injected request
      // (Fastify's inject, light-my-request) never completes, and its stand-in socket has no destroy —
      // calling it threw in a timer and ended the test process 15 s later.
      request.destroy();
    }
  }, 100);
  timer.unref();
  request.once('close', () => clearInterval(timer));
}
