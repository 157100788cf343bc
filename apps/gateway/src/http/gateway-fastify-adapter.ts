import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { CoreReply } from '../core-client/core-client';
import { writeCoreReply } from '../core-client/core-reply-writer';

/**
 * Nest's Fastify adapter, writing a handler's CoreReply (api-core's status, its JSON bytes as they
 * came) where Nest sends what a route returned. Doing it here rather than in an interceptor keeps
 * read routes free of interceptors: with one, Nest runs every request through an rxjs pipeline and
 * two AsyncResource bindings, 10 % of the gateway's CPU on `GET /debtors/{id}` (docs/adr/0034).
 */
export class GatewayFastifyAdapter extends FastifyAdapter {
  override reply(response: Parameters<FastifyAdapter['reply']>[0], body: unknown, statusCode?: number): FastifyReply {
    // Nest hands over Fastify's reply (`raw` is its Node response) unless a route took the raw one.
    const sendable = body instanceof CoreReply && 'raw' in response ? writeCoreReply(response, body) : body;
    return super.reply(response, sendable, statusCode);
  }
}
