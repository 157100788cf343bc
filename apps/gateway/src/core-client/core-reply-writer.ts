import { JsonBytes } from '@dc/contracts';
import type { FastifyReply } from 'fastify';
import { CoreReply } from './core-client';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Writes api-core's success status to the response and returns what to send: a read's JSON bytes as
 * they came from api-core, never parsed (docs/adr/0024), or the body as it is.
 */
export function writeCoreReply(reply: FastifyReply, result: CoreReply<unknown>): unknown {
  void reply.status(result.status);
  if (result.headers) void reply.headers(result.headers);
  if (!(result.body instanceof JsonBytes)) return result.body;
  void reply.type(JSON_TYPE);
  const { bytes } = result.body;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
