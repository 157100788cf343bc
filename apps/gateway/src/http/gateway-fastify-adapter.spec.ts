import { JsonBytes } from '@dc/contracts';
import { CoreReply } from '../core-client/core-client';
import { GatewayFastifyAdapter } from './gateway-fastify-adapter';

/** A route that hands `result` to the adapter as Nest does with a handler's return value. */
async function answer(result: unknown, routeStatus = 200) {
  const adapter = new GatewayFastifyAdapter();
  const fastify = adapter.getInstance();
  fastify.get('/', (_request, reply) => {
    void reply.status(routeStatus);
    return adapter.reply(reply, result);
  });
  await fastify.ready();
  const response = await fastify.inject({ method: 'GET', url: '/' });
  await fastify.close();
  return response;
}

describe('GatewayFastifyAdapter', () => {
  it("sends a read's JSON bytes as they came, with api-core's status and the JSON content type", async () => {
    const response = await answer(new CoreReply(200, JsonBytes.fromText('{"data":{"id":"dbt_1"}}')));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toBe('{"data":{"id":"dbt_1"}}');
  });

  it("writes api-core's status over the route's and serialises a body that is not bytes", async () => {
    const response = await answer(new CoreReply(207, { data: { processed: 1 } }), 200);
    expect(response.statusCode).toBe(207);
    expect(response.json()).toEqual({ data: { processed: 1 } });
  });

  it('sends anything else as Nest would, with the status already set', async () => {
    const response = await answer({ data: { ok: true } }, 201);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ data: { ok: true } });
  });
});
