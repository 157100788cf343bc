import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { INestMicroservice } from '@nestjs/common';
import { DEADLINE_HEADER, ErrorCode, REQUEST_ID_HEADER, RpcReply } from '@dc/contracts';
import IORedis from 'ioredis';
import { connect, Msg, NatsConnection } from 'nats';
import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { CLAIM_CHECK_HEADER, CONTENT_ENCODING_HEADER, NatsBus, NatsRpcServer, PayloadStore } from '../src';

/**
 * Large requests over the real NATS (127.0.0.1:4222) and Redis (127.0.0.1:6379): NatsBus encodes,
 * NatsRpcServer decodes before Nest reads the message (docs/adr/0017). A second, plain
 * subscriber on the same subject sees each message as it travels.
 */

const NATS_URL = 'nats://127.0.0.1:4222';
const namespace = `t${process.pid}${randomBytes(3).toString('hex')}`;
const sha256 = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const signingKeys = { current: randomBytes(32), previous: [] };

interface Echoed {
  sha256: string;
  length: number;
}

/** What the handler got: its hash, so the reply stays small (replies are not encoded). */
@Controller()
class EchoHandlers {
  static calls = 0;

  @MessagePattern('echo')
  echo(@Payload() data: unknown): RpcReply<Echoed> {
    EchoHandlers.calls += 1;
    return { ok: true, status: 200, body: { sha256: sha256(data), length: JSON.stringify(data).length } };
  }
}

@Module({ controllers: [EchoHandlers] })
class EchoModule {}

/** The real store, with a pause before each take (a claim that expires before api-core reads it). */
class SlowTakeStore extends PayloadStore {
  takeDelayMs = 0;
  override async take(ref: string): Promise<Buffer | null> {
    if (this.takeDelayMs) await sleep(this.takeDelayMs);
    return super.take(ref);
  }
}

describe('large messages over NATS: gzip and claim check in the transport', () => {
  const redis = new IORedis('redis://127.0.0.1:6379', { lazyConnect: true });
  const serverStore = new SlowTakeStore(redis, namespace);
  const warnings: { obj: object; msg: string }[] = [];
  let app: INestMicroservice;
  let bus: NatsBus;
  let spy: NatsConnection;
  const seen: Msg[] = [];

  const lastSeen = async (): Promise<Msg> => {
    await spy.flush();
    return seen[seen.length - 1];
  };

  beforeAll(async () => {
    await redis.connect();
    const server = new NatsRpcServer({
      servers: [NATS_URL],
      subjectPrefix: namespace,
      queue: 'transport-e2e',
      name: 'transport-e2e-server',
      service: 'api-core',
      signingKeys,
      drainTimeoutMs: 2_000,
      // One at a time: a request whose body could not be read must still be counted out.
      maxConcurrency: 1,
      payloads: serverStore,
      log: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    });
    app = await NestFactory.createMicroservice(EchoModule, { strategy: server, logger: false });
    await app.listen();
    bus = await NatsBus.connect({ servers: [NATS_URL], subjectPrefix: namespace, requestTimeoutMs: 10_000, name: 'transport-e2e-bus', service: 'gateway', signingKeys, payloads: new PayloadStore(redis, namespace) });
    spy = await connect({ servers: [NATS_URL], name: 'transport-e2e-spy' });
    spy.subscribe(bus.subject('echo'), { callback: (_err, msg) => seen.push(msg) });
    await spy.flush();
  });

  afterAll(async () => {
    await bus?.drain();
    await spy?.drain();
    await app?.close();
    const left = await redis.keys(`${namespace}:*`);
    if (left.length) await redis.del(...left);
    redis.disconnect();
  });

  beforeEach(() => {
    EchoHandlers.calls = 0;
    serverStore.takeDelayMs = 0;
  });

  it('a small request travels as plain JSON in Nest wire format, with the request id and deadline headers', async () => {
    const data = { hello: 'world', n: 1 };
    const reply = await bus.request<Echoed>('echo', data, 'req-small');
    expect(reply).toEqual({ ok: true, status: 200, body: { sha256: sha256(data), length: JSON.stringify(data).length } });

    const msg = await lastSeen();
    expect(msg.headers?.has(CONTENT_ENCODING_HEADER)).toBe(false);
    expect(msg.headers?.has(CLAIM_CHECK_HEADER)).toBe(false);
    expect(msg.headers?.get(REQUEST_ID_HEADER)).toBe('req-small');
    expect(Number(msg.headers?.get(DEADLINE_HEADER))).toBeGreaterThan(Date.now());
    expect(msg.json()).toEqual({ pattern: 'echo', data, id: expect.any(String) });
  });

  it('a ~3 MB compressible request travels gzipped under max_payload and arrives intact', async () => {
    const data = { rows: Array.from({ length: 20_000 }, (_, i) => ({ externalId: `e${i}`, name: `Debtor number ${i}`, note: 'compressible free text '.repeat(5) })) };
    const size = JSON.stringify(data).length;
    expect(size).toBeGreaterThan(2.5 * 1024 * 1024);
    expect(size).toBeGreaterThan(bus.maxPayload());

    const reply = await bus.request<Echoed>('echo', data, 'req-gzip');
    expect(reply).toEqual({ ok: true, status: 200, body: { sha256: sha256(data), length: size } });

    const msg = await lastSeen();
    expect(msg.headers?.get(CONTENT_ENCODING_HEADER)).toBe('gzip');
    expect(msg.headers?.has(CLAIM_CHECK_HEADER)).toBe(false);
    expect(msg.headers?.get(REQUEST_ID_HEADER)).toBe('req-gzip');
    expect(msg.data.length).toBeLessThan(bus.maxPayload());
    expect(JSON.parse(gunzipSync(msg.data).toString('utf8'))).toEqual({ pattern: 'echo', data, id: expect.any(String) });
  });

  it('a request that does not gzip below max_payload goes by claim check, arrives intact, and the claim is taken once', async () => {
    // Random bytes in base64 gzip to ~3/4: 1.5 × max_payload of them stays over one message.
    const data = { blob: randomBytes(Math.ceil(bus.maxPayload() * 1.5)).toString('base64') };

    const reply = await bus.request<Echoed>('echo', data, 'req-claim');
    expect(reply).toEqual({ ok: true, status: 200, body: { sha256: sha256(data), length: JSON.stringify(data).length } });

    const msg = await lastSeen();
    expect(msg.data.length).toBe(0);
    expect(msg.headers?.get(CONTENT_ENCODING_HEADER)).toBe('gzip');
    expect(msg.headers?.get(REQUEST_ID_HEADER)).toBe('req-claim');
    const ref = msg.headers?.get(CLAIM_CHECK_HEADER) ?? '';
    expect(ref).not.toBe('');
    expect(await redis.exists(`${namespace}:payload:${ref}`)).toBe(0);
  });

  it('a claim that expired before api-core read it answers 503 service_unavailable, the handler unrun', async () => {
    const shortLived = await NatsBus.connect({
      servers: [NATS_URL],
      subjectPrefix: namespace,
      requestTimeoutMs: 10_000,
      name: 'transport-e2e-short-lived',
      service: 'gateway',
      signingKeys,
      payloads: new PayloadStore(redis, namespace, 1),
    });
    try {
      serverStore.takeDelayMs = 1_500; // past the claim's 1 s in Redis
      const data = { blob: randomBytes(Math.ceil(bus.maxPayload() * 1.5)).toString('base64') };
      const reply = await shortLived.request('echo', data, 'req-expired');
      expect(reply).toEqual({
        ok: false,
        error: { code: ErrorCode.ServiceUnavailable, message: 'The request could not be read back in time. Retry the request.' },
      });
      expect(EchoHandlers.calls).toBe(0);
      expect(warnings).toContainEqual({ obj: expect.objectContaining({ requestId: 'req-expired', channel: 'echo' }), msg: 'request body could not be read' });
    } finally {
      await shortLived.drain();
    }

    // Counted out: with maxConcurrency 1, the next request runs instead of being shed.
    serverStore.takeDelayMs = 0;
    const after = await bus.request<Echoed>('echo', { again: true }, 'req-after');
    expect(after.ok).toBe(true);
    expect(EchoHandlers.calls).toBe(1);
  });
});
