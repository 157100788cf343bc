/**
 * The baseline's edge (bench/read-baseline.bench.ts, bench/writes.bench.ts): Fastify, the project's
 * version, and nothing else — no Nest, no auth, no rate limit, no validation, no logging. Each route
 * does one NATS request (nats.js `request()`, with `noAsyncTraces` as the project's NatsBus) and
 * sends the reply's bytes as they came; `POST /public/v1/payments` and the operator's promise and call
 * intake forward the raw body and answer with the status the service put in its reply. Started by the bench as
 * `node dist/bench/baseline/bare-gateway.js`.
 */
import Fastify from 'fastify';
import { connect, Msg } from 'nats';
import { BaselineEnv, env, ListRequest, readStatusReply, runBaselineProcess, subjects } from './protocol';

const JSON_TYPE = 'application/json; charset=utf-8';
const NOT_FOUND = '{"error":{"code":"not_found"}}';
const FAILED = '{"error":{"code":"internal_error"}}';

async function main(): Promise<() => Promise<unknown>> {
  const nc = await connect({ servers: [env(BaselineEnv.natsUrl)], name: 'bare-gateway', noAsyncTraces: true });
  const subject = subjects(env(BaselineEnv.subjectPrefix));
  const timeout = Number(env(BaselineEnv.requestTimeoutMs, '5000'));
  const app = Fastify({ logger: false });
  const bytes = (msg: Msg) => Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength);

  app.get('/public/v1/debtors', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const input: ListRequest = { limit: query.limit, cursor: query.cursor, portfolioId: query.portfolioId };
    const msg = await nc.request(subject.list, JSON.stringify(input), { timeout });
    if (!msg.data.byteLength) return reply.status(500).type(JSON_TYPE).send(FAILED);
    return reply.type(JSON_TYPE).send(bytes(msg));
  });

  app.get('/public/v1/debtors/:id', async (request, reply) => {
    const msg = await nc.request(subject.get, (request.params as { id: string }).id, { timeout });
    if (!msg.data.byteLength) return reply.status(404).type(JSON_TYPE).send(NOT_FOUND);
    return reply.type(JSON_TYPE).send(bytes(msg));
  });

  app.get('/public/v1/events', async (request, reply) => {
    const input: ListRequest = { limit: (request.query as Record<string, string | undefined>).limit };
    const msg = await nc.request(subject.events, JSON.stringify(input), { timeout });
    if (!msg.data.byteLength) return reply.status(500).type(JSON_TYPE).send(FAILED);
    return reply.type(JSON_TYPE).send(bytes(msg));
  });

  app.get('/public/v1/me', async (_request, reply) => {
    const msg = await nc.request(subject.me, undefined, { timeout });
    return reply.type(JSON_TYPE).send(bytes(msg));
  });

  // The body as it came (a parser of this route's scope only), to bare-write-service.
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post('/public/v1/payments', async (request, reply) => {
      const answer = readStatusReply((await nc.request(subject.registerPayment, request.body as Buffer, { timeout })).data);
      if (!answer) return reply.status(500).type(JSON_TYPE).send(FAILED);
      return reply.status(answer.status).type(JSON_TYPE).send(answer.body);
    });
    // Operator intake: an IntakeRequest, the body's bytes spliced in as they came.
    for (const [path, subjectOf] of [['promises', subject.createPromise], ['calls', subject.createCall]] as const) {
      scope.post(`/operator/v1/portfolios/:id/${path}`, async (request, reply) => {
        const head = Buffer.from(`{"portfolioId":${JSON.stringify((request.params as { id: string }).id)},"body":`, 'utf8');
        const message = Buffer.concat([head, request.body as Buffer, Buffer.from('}')]);
        const answer = readStatusReply((await nc.request(subjectOf, message, { timeout })).data);
        if (!answer) return reply.status(500).type(JSON_TYPE).send(FAILED);
        return reply.status(answer.status).type(JSON_TYPE).send(answer.body);
      });
    }
  });

  await app.listen({ host: '127.0.0.1', port: Number(env(BaselineEnv.port, '0')) });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ msg: 'bare-gateway listening', port })}\n`);

  return () => app.close().then(() => nc.close());
}

runBaselineProcess(main);
