import type { RecordedExchange } from '@dc/testing';
import type { FastifyInstance } from 'fastify';
import { appendFileSync } from 'node:fs';
import path from 'node:path';

/**
 * When DC_TEST_LOG_DIR is set (the e2e run's global setup sets it), appends every exchange of the
 * public listener to `exchanges-<pid>.jsonl` there, for the contract check at the end of the run
 * (docs/adr/0030). Registered before compression, so it sees the body the handler sent.
 * Not `.log`: the bodies hold the tests' fictitious personal data, which the log audit looks for.
 */
export function recordExchanges(fastify: FastifyInstance, dir: string | undefined = process.env.DC_TEST_LOG_DIR): void {
  if (!dir) return;
  const file = path.join(dir, `exchanges-${process.pid}.jsonl`);
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const record: RecordedExchange = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: request.url,
      status: reply.statusCode,
      headers: Object.fromEntries(
        Object.entries(reply.getHeaders()).flatMap(([name, value]) =>
          value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.map(String) : String(value)]],
        ),
      ),
      body: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : null,
      requestBytes: Number(request.headers['content-length'] ?? 0) || 0,
    };
    appendFileSync(file, `${JSON.stringify(record)}\n`);
    done(null, payload);
  });
}
