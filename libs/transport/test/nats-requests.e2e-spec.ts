import { AppError, ErrorCode, JsonBytes, REPLY_STATUS_HEADER } from '@dc/contracts';
import { connect, headers, JSONCodec, NatsConnection } from 'nats';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClaimStore, NatsBus, NatsBusOptions, OutcomeUnknownError, REFUSED_HEADER } from '../src';

/**
 * NatsBus's own request/reply (one wildcard subscription on its inbox, a pending map by token) over
 * the real NATS (127.0.0.1:4222), against plain responders that answer in the Nest wire format; and
 * over a private nats-server for a restart (reconnect) and a publish permission violation.
 */

const NATS_URL = 'nats://127.0.0.1:4222';
const namespace = `t${process.pid}${randomBytes(3).toString('hex')}`;
const json = JSONCodec<any>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const signingKeys = { current: randomBytes(32), previous: [] };
/** Small requests never park a body. */
const noClaims: ClaimStore = {
  put: () => Promise.reject(new Error('unexpected claim check')),
  take: () => Promise.reject(new Error('unexpected claim check')),
};

function busOptions(overrides: Partial<NatsBusOptions>): NatsBusOptions {
  return { servers: [NATS_URL], subjectPrefix: namespace, requestTimeoutMs: 10_000, name: 'nats-requests-e2e', service: 'gateway', signingKeys, payloads: noClaims, ...overrides };
}

/** Answers `{pattern, data, id}` with `{id, response: {ok, status: 200, body: data}}` after `delayMs` (a function: per message). */
function answer(nc: NatsConnection, subject: string, delayMs: (data: any) => number = () => 0): void {
  nc.subscribe(subject, {
    callback: (_err, msg) => {
      const { id, data } = json.decode(msg.data);
      setTimeout(() => msg.respond(json.encode({ id, response: { ok: true, status: 200, body: data } })), delayMs(data));
    },
  });
}

/** Which error a promise rejects with, and how long it took. */
async function failure(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('the request did not fail');
}

const activeTimeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('NatsBus requests: its own muxed request/reply', () => {
  let responder: NatsConnection;
  let bus: NatsBus;
  /** Times out after 300 ms. */
  let hasty: NatsBus;

  beforeAll(async () => {
    responder = await connect({ servers: [NATS_URL], name: 'nats-requests-e2e-responder' });
    answer(responder, `${namespace}.echo`, () => Math.floor(Math.random() * 20));
    // Answers after `data.delayMs`.
    answer(responder, `${namespace}.slow`, (data) => data.delayMs);
    // Reads and never answers.
    responder.subscribe(`${namespace}.silent`, { callback: () => undefined });
    responder.subscribe(`${namespace}.bytes`, {
      callback: (_err, msg) => {
        const h = headers();
        h.set(REPLY_STATUS_HEADER, '200');
        msg.respond(new TextEncoder().encode('{"items":[1,2]}'), { headers: h });
      },
    });
    responder.subscribe(`${namespace}.refuse`, {
      callback: (_err, msg) => {
        const h = headers();
        h.set(REFUSED_HEADER, 'invalid');
        msg.respond(new Uint8Array(0), { headers: h });
      },
    });
    await responder.flush();
    bus = await NatsBus.connect(busOptions({}));
    hasty = await NatsBus.connect(busOptions({ requestTimeoutMs: 300 }));
  });

  afterAll(async () => {
    await bus?.drain();
    await hasty?.drain();
    await responder?.drain();
  });

  it('200 concurrent requests, answered in shuffled order, each get their own reply; no timer is left behind', async () => {
    await bus.request('echo', { warm: true }, 'warm-up');
    const timersBefore = activeTimeouts();
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => bus.request('echo', { i, tag: randomBytes(8).toString('hex') }, `req-${i}`)));
    replies.forEach((reply, i) => expect(reply).toEqual({ ok: true, status: 200, body: { i, tag: expect.any(String) } }));
    expect(new Set(replies.map((r: any) => r.body.tag)).size).toBe(200);
    // A leak would leave one per request; a few are the libraries' own.
    expect(activeTimeouts()).toBeLessThan(timersBefore + 10);
  });

  it('a reply with the status header is the body as bytes; a refused signature is an internal error', async () => {
    const reply = await bus.request<JsonBytes>('bytes', {}, 'req-bytes');
    expect(reply.ok && reply.status).toBe(200);
    expect(reply.ok && Buffer.from((reply.body as JsonBytes).bytes).toString()).toBe('{"items":[1,2]}');
    const { error } = await failure(bus.request('refuse', {}, 'req-refuse'));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.InternalError);
  });

  it('no answer within requestTimeoutMs: OutcomeUnknownError (503, "did not answer in time")', async () => {
    const { error, ms } = await failure(hasty.request('silent', {}, 'req-silent'));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as AppError).code).toBe(ErrorCode.ServiceUnavailable);
    expect((error as AppError).message).toMatch(/did not answer in time/);
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(2_000);
  });

  it('nobody subscribed: the broker answers no-responders at once, a 503 that is not an unknown outcome', async () => {
    const { error, ms } = await failure(bus.request('nobody-serves-this', {}, 'req-nobody'));
    expect(error).toBeInstanceOf(AppError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as AppError).code).toBe(ErrorCode.ServiceUnavailable);
    expect((error as AppError).message).toMatch(/no instance of the core service is available/);
    expect(ms).toBeLessThan(1_000);
  });

  it('a reply that comes after its request timed out is ignored: the next request still gets its own', async () => {
    // A times out at 300 ms; its reply comes at 500 ms, while B and C wait for theirs (at ~350 and ~600 ms).
    const a = failure(hasty.request('slow', { who: 'a', delayMs: 500 }, 'req-a'));
    await sleep(320);
    const b = hasty.request('slow', { who: 'b', delayMs: 250 }, 'req-b');
    const c = hasty.request('slow', { who: 'c', delayMs: 20 }, 'req-c');
    expect((await a).error).toBeInstanceOf(OutcomeUnknownError);
    expect(await b).toEqual({ ok: true, status: 200, body: { who: 'b', delayMs: 250 } });
    expect(await c).toEqual({ ok: true, status: 200, body: { who: 'c', delayMs: 20 } });
    await sleep(300);
    expect(await hasty.request('echo', { after: true }, 'req-after')).toEqual({ ok: true, status: 200, body: { after: true } });
  });

  it('drain: what still waits is rejected with a 503 at once, and later requests are refused (broker unreachable)', async () => {
    const draining = await NatsBus.connect(busOptions({}));
    const waiting = Array.from({ length: 5 }, (_, i) => failure(draining.request('silent', { i }, `req-pending-${i}`)));
    await sleep(50);
    await draining.drain();
    for (const { error, ms } of await Promise.all(waiting)) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe(ErrorCode.ServiceUnavailable);
      expect(ms).toBeLessThan(5_000);
    }
    const { error } = await failure(draining.request('echo', {}, 'req-closed'));
    expect(error).toBeInstanceOf(AppError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as AppError).message).toMatch(/the message broker is unreachable/);
  });
});

/** A TCP port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('NatsBus requests on a private nats-server: restart and permissions', () => {
  const prefix = `p${process.pid}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'dc-nats-requests-'));
  const conf = path.join(dir, 'nats.conf');
  let port: number;
  let server: ChildProcess | undefined;
  let responder: NatsConnection;
  let bus: NatsBus;

  const start = async () => {
    server = spawn('/usr/sbin/nats-server', ['-c', conf], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      const probe = await connect({ servers: [`nats://127.0.0.1:${port}`], user: 'responder', pass: 'responder-pw', reconnect: false }).catch(() => undefined);
      if (probe) return probe.close();
      await sleep(50);
    }
    throw new Error('nats-server did not start');
  };
  const stop = async () => {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server!.kill('SIGTERM');
    await exited;
  };

  beforeAll(async () => {
    port = await freePort();
    // The gateway's user may publish only `<prefix>.echo` and read only its own inbox (as docs/nats.conf does).
    writeFileSync(conf, `listen: 127.0.0.1:${port}
authorization {
  users = [
    { user: gateway, password: gateway-pw, permissions: { publish: ["${prefix}.echo"], subscribe: ["_INBOX_gateway.${prefix}.>"] } }
    { user: responder, password: responder-pw }
  ]
}
`);
    await start();
    const servers = [`nats://127.0.0.1:${port}`];
    responder = await connect({ servers, user: 'responder', pass: 'responder-pw', maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    answer(responder, `${prefix}.echo`);
    answer(responder, `${prefix}.other`);
    await responder.flush();
    bus = await NatsBus.connect(busOptions({ servers, subjectPrefix: prefix, user: 'gateway', password: 'gateway-pw', requestTimeoutMs: 3_000 }));
  });

  afterAll(async () => {
    await bus?.drain();
    await responder?.close();
    if (server && server.exitCode === null) await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a request the server refuses to route (publish permission violation) fails at once: broker unreachable', async () => {
    const { error, ms } = await failure(bus.request('other', {}, 'req-denied'));
    expect(error).toBeInstanceOf(AppError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as AppError).message).toMatch(/the message broker is unreachable/);
    expect(ms).toBeLessThan(2_000);
    expect(await bus.request('echo', { still: 'served' }, 'req-allowed')).toEqual({ ok: true, status: 200, body: { still: 'served' } });
  });

  it('after a NATS restart the reply subscription is back: requests are answered again', async () => {
    expect(await bus.request('echo', { n: 1 }, 'req-before')).toEqual({ ok: true, status: 200, body: { n: 1 } });
    await stop();
    await start();
    const deadline = Date.now() + 15_000;
    let reply: unknown;
    while (Date.now() < deadline) {
      reply = await bus.request('echo', { n: 2 }, 'req-after-restart').catch((err: AppError) => err.message);
      if (typeof reply !== 'string') break;
      await sleep(200);
    }
    expect(reply).toEqual({ ok: true, status: 200, body: { n: 2 } });
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => bus.request('echo', { i }, `req-${i}`)));
    many.forEach((r, i) => expect(r).toEqual({ ok: true, status: 200, body: { i } }));
  });
});
