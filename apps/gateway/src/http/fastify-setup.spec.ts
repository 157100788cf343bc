import Fastify from 'fastify';
import pino from 'pino';
import type { FastifyRequest } from 'fastify';
import { loadConfig } from '@dc/config';
import { configureFastify, fastifyOptions, guarded } from './fastify-setup';

/** The listener setup on a bare Fastify (no Nest): request ids, framework errors, draining. */
describe('fastify setup', () => {
  async function listener() {
    const logger = pino({ level: 'silent' });
    const http = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000, idleTimeoutMs: 120_000 };
    const app = Fastify(fastifyOptions({ trustRequestId: false, trustProxy: false, http }, logger));
    const drainable = configureFastify(app, logger);
    app.get('/things/:id', async (request) => ({ id: (request.params as { id: string }).id }));
    await app.ready();
    return { app, drainable };
  }

  const expectEnvelope = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, code: string) => {
    expect(res.statusCode).toBe(status);
    const requestId = res.headers['x-request-id'];
    expect(requestId).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(res.json()).toEqual({ error: { code, message: expect.any(String), requestId } });
  };

  it('answers routed requests with an X-Request-Id', async () => {
    const { app } = await listener();
    const res = await app.inject({ method: 'GET', url: '/things/a' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('a caller\'s X-Request-Id is ignored unless TRUST_REQUEST_ID says so (by default it does not)', async () => {
    const logger = pino({ level: 'silent' });
    const listenerWith = async (env: Record<string, string>) => {
      const app = Fastify(fastifyOptions(loadConfig('gateway', env).gateway, logger));
      configureFastify(app, logger);
      app.get('/things/:id', async () => ({}));
      await app.ready();
      return app;
    };
    const headers = { 'x-request-id': 'client-trace-0001' };
    const byDefault = await (await listenerWith({})).inject({ method: 'GET', url: '/things/a', headers });
    expect(byDefault.statusCode).toBe(200);
    expect(byDefault.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    const trusted = await (await listenerWith({ TRUST_REQUEST_ID: 'true' })).inject({ method: 'GET', url: '/things/a', headers });
    expect(trusted.headers['x-request-id']).toBe('client-trace-0001');
  });

  it('an undecodable path or an over-long path parameter is 404 not_found in the envelope', async () => {
    const { app } = await listener();
    expectEnvelope(await app.inject({ method: 'GET', url: '/things/%C0' }), 404, 'not_found');
    expectEnvelope(await app.inject({ method: 'GET', url: `/things/${'x'.repeat(101)}` }), 404, 'not_found');
  });

  it('while draining, new requests get 503 service_unavailable in the envelope and Connection: close', async () => {
    const { app, drainable } = await listener();
    drainable.startDraining();
    const res = await app.inject({ method: 'GET', url: '/things/a' });
    expectEnvelope(res, 503, 'service_unavailable');
    expect(res.headers.connection).toBe('close');
  });

  it('a body parser that throws hands its error to Fastify instead of throwing', () => {
    const done = jest.fn();
    const request = {} as FastifyRequest;
    guarded(() => {
      throw new RangeError('Maximum call stack size exceeded');
    })(request, Buffer.from('[]'), done);
    expect(done).toHaveBeenCalledWith(expect.any(RangeError));
    expect(request.bodyBytes).toBe(2);
    guarded(() => 'never')(request, Buffer.alloc(0), done);
    expect(done).toHaveBeenLastCalledWith(null, undefined);
  });

  it('applies the listener timeouts (the 408 itself: hostile-input.e2e-spec.ts)', async () => {
    const { app } = await listener();
    const { headersTimeout, requestTimeout, keepAliveTimeout, timeout } = app.server;
    expect({ headersTimeout, requestTimeout, keepAliveTimeout, timeout }).toEqual({
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 65_000,
      timeout: 120_000,
    });
  });
});
