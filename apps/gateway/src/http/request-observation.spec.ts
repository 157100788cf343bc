import Fastify from 'fastify';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { currentRequestId } from '@dc/observability';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { configureFastify, fastifyOptions } from './fastify-setup';

/** Observability (docs/adr/0032): every request runs in its request context (log lines carry its id) and is counted by route template. */
describe('request context and http_request_duration_seconds', () => {
  async function listener() {
    const logger = pino({ level: 'silent' });
    const http = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000, idleTimeoutMs: 120_000 };
    const app = Fastify(fastifyOptions({ trustRequestId: true, trustProxy: false, http }, logger));
    const metrics = new GatewayMetrics();
    configureFastify(app, logger, { metrics, listener: 'public' });
    // What a handler's log line would carry: read after an await, past the body's parsing.
    app.post('/things/:id', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return { requestId: currentRequestId() ?? null };
    });
    app.get('/things/:id', async () => ({ requestId: currentRequestId() ?? null }));
    await app.ready();
    return { app, metrics };
  }

  it('the handler runs in the context of its request, with or without a body', async () => {
    const { app } = await listener();
    const id = 'b7c1a3e4-5f60-4d2a-9b8c-0123456789ab';
    const posted = await app.inject({ method: 'POST', url: '/things/1', headers: { 'x-request-id': id, 'content-type': 'application/json' }, payload: '{"a":1}' });
    expect(posted.json()).toEqual({ requestId: id });
    const got = await app.inject({ method: 'GET', url: '/things/2', headers: { 'x-request-id': `${id}-2` } });
    expect(got.json()).toEqual({ requestId: `${id}-2` });
    // Outside a request there is none.
    expect(currentRequestId()).toBeUndefined();
  });

  it('over a socket, a body that arrives in pieces does not take the handler out of its context', async () => {
    const { app } = await listener();
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const id = 'c8d2b4f5-6071-4e3b-8c9d-123456789abc';
      const answer = await new Promise<string>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/things/3', headers: { 'x-request-id': id, 'content-type': 'application/json', 'content-length': '10' } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.write('{"a":');
        setTimeout(() => req.end('1234}'), 50);
      });
      expect(JSON.parse(answer)).toEqual({ requestId: id });
    } finally {
      await app.close();
    }
  });

  it('counts each answer by listener, method, route template (never the raw URL) and status', async () => {
    const { app, metrics } = await listener();
    await app.inject({ method: 'GET', url: '/things/a' });
    await app.inject({ method: 'GET', url: '/things/b' });
    await app.inject({ method: 'GET', url: '/nowhere/c' });
    const body = await metrics.registry.metrics();
    expect(body).toContain('http_request_duration_seconds_count{listener="public",method="GET",route="/things/:id",status_code="200"} 2');
    expect(body).toContain('http_request_duration_seconds_count{listener="public",method="GET",route="unmatched",status_code="404"} 1');
    expect(body).not.toContain('/things/a');
    expect(body).not.toContain('/nowhere');
  });
});
