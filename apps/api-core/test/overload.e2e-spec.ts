import { Database, DeadlinePassedError, Prisma } from '@dc/database';
import { createTenant, holdAdvisoryLock, OperatorClient, ServiceProcess, Stack, Tenant, untilWaiting, withDatabase } from '@dc/testing';
import net from 'node:net';
import request from 'supertest';

/**
 * Timeouts and load shedding (docs/adr/0014): Postgres sessions carry their timeouts; an api-core
 * replica at its concurrency cap refuses the excess at once (503 + Retry-After) and loses nothing;
 * work whose caller has given up is not started; a replica that cannot reach Postgres leaves the
 * queue group until it can again.
 */
const debtorsOf = (externalId: string) => ({
  debtors: [{ externalId, identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'D-1' }],
});

const countDebtors = (stack: Stack, externalId: string) =>
  withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT count(*)::int AS n FROM debtors WHERE external_id = $1', [externalId])).rows[0].n as number);

describe('Postgres session timeouts (Database)', () => {
  let stack: Stack;
  let database: Database;

  beforeAll(async () => {
    stack = await Stack.start({ apiCoreReplicas: 0, gatewayReplicas: 0 });
    database = new Database(stack.databaseUrl, 1, { statementTimeoutMs: 300, lockTimeoutMs: 200, idleInTransactionTimeoutMs: 1_000, connectTimeoutMs: 500 });
  });
  afterAll(async () => {
    await database?.close();
    await stack?.stop();
  });

  it('every session has statement_timeout, lock_timeout and idle_in_transaction_session_timeout', async () => {
    const rows = await database.client.$queryRaw<{ s: string; l: string; i: string }[]>`
      SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l,
             current_setting('idle_in_transaction_session_timeout') AS i`;
    expect(rows).toEqual([{ s: '300ms', l: '200ms', i: '1s' }]);
  });

  it('a statement longer than statement_timeout is cancelled by Postgres', async () => {
    await expect(database.prepared(Prisma.sql`SELECT pg_sleep(2)`)).rejects.toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
  });

  it('a lock wait longer than lock_timeout is cancelled', async () => {
    const lock = await holdAdvisoryLock(stack.databaseUrl, 'lock-timeout-probe');
    try {
      await expect(database.prepared(Prisma.sql`SELECT pg_advisory_lock(hashtextextended('lock-timeout-probe', 0))`)).rejects.toMatchObject({
        code: '55P03',
        message: 'canceling statement due to lock timeout',
      });
    } finally {
      await lock.release();
    }
  });

  it('hands out no connection once the current request is past its deadline', async () => {
    const late = new Database(stack.databaseUrl, 1, { deadline: () => Date.now() - 1 });
    try {
      await expect(late.prepared(Prisma.sql`SELECT 1`)).rejects.toBeInstanceOf(DeadlinePassedError);
      await expect(late.ping()).rejects.toThrow('The caller stopped waiting for this request before its database work could start.');
    } finally {
      await late.close();
    }
  });
});

describe('an api-core replica under overload', () => {
  let stack: Stack;
  let tenant: Tenant;
  let impatientUrl: string;

  beforeAll(async () => {
    stack = await Stack.start({ env: { API_CORE_MAX_CONCURRENCY: '2' } });
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
    impatientUrl = (await stack.startGateway({ NATS_REQUEST_TIMEOUT_MS: '1000' })).publicUrl;
    // Both gateways verify the key now, not while api-core is busy (verification goes to api-core).
    for (const url of [stack.publicUrl, impatientUrl]) {
      expect((await request(url).get('/public/v1/me').set('Authorization', `Bearer ${tenant.key}`)).status).toBe(200);
    }
  });
  afterAll(() => stack?.stop());

  const batch = (externalId: string, idempotencyKey?: string, url = stack.publicUrl) => {
    const req = request(url)
      .post(`/public/v1/portfolios/${tenant.portfolioIds[0]}/debtors`)
      .set('Authorization', `Bearer ${tenant.key}`);
    if (idempotencyKey) void req.set('Idempotency-Key', idempotencyKey);
    return req.send(debtorsOf(externalId));
  };

  it('refuses requests beyond its cap at once with 503 and Retry-After, and loses nothing', async () => {
    const stamp = Date.now();
    const held = [`held-a-${stamp}`, `held-b-${stamp}`];
    const locks = await Promise.all(held.map((e) => holdAdvisoryLock(stack.databaseUrl, `debtor:${tenant.portfolioIds[0]}:${e}`)));
    let running: Promise<request.Response>[] = [];
    try {
      running = held.map((e) => batch(e).then((res) => res));
      for (const lock of locks) await untilWaiting(lock); // two requests run: the cap

      const shedId = `shed-${stamp}`;
      const started = Date.now();
      const shed = await batch(shedId, `idem-${shedId}`);
      expect(Date.now() - started).toBeLessThan(1_000); // answered at once, not queued
      expect(shed.status).toBe(503);
      expect(shed.headers['retry-after']).toBe('1');
      expect(shed.body).toEqual({
        error: {
          code: 'service_unavailable',
          message: 'The service is at capacity and did not start this request. Retry after the time in Retry-After.',
          requestId: shed.headers['x-request-id'],
        },
      });
      const read = await request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${tenant.key}`);
      expect(read.status).toBe(503);
      expect(read.headers['retry-after']).toBe('1');
      expect(read.body.error.code).toBe('service_unavailable');
      expect(await countDebtors(stack, shedId)).toBe(0); // never started

      await Promise.all(locks.map((l) => l.release()));
      for (const res of await Promise.all(running)) {
        expect(res.status).toBe(200);
        expect(res.body.data.summary).toEqual({ created: 1, received: 1, rejected: 0, updated: 0 });
      }
      // The shed request released its Idempotency-Key claim: the retry runs at once, once.
      const retry = await batch(shedId, `idem-${shedId}`);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(retry.body.data.summary).toEqual({ created: 1, received: 1, rejected: 0, updated: 0 });
      expect(await countDebtors(stack, shedId)).toBe(1);
      for (const e of held) expect(await countDebtors(stack, e)).toBe(1);
      expect(stack.apiCores[0].logs.filter((l) => l.msg === 'shed: at max concurrency')).toHaveLength(2);
    } finally {
      await Promise.all(locks.map((l) => l.release().catch(() => undefined)));
      await Promise.allSettled(running);
    }
  });

  it('does not start a request whose caller has already given up', async () => {
    const core = stack.apiCores[0];
    const externalId = `late-${Date.now()}`;
    process.kill(core.pid, 'SIGSTOP'); // the request waits in NATS past the gateway's 1 s
    let res: request.Response;
    try {
      res = await batch(externalId, undefined, impatientUrl);
    } finally {
      process.kill(core.pid, 'SIGCONT');
    }
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    const requestId = res.headers['x-request-id'];
    const dropped = await core.waitForLog((l) => l.msg === 'dropped: the caller had already given up' && l.requestId === requestId);
    expect(dropped.channel).toContain('debtors.batch-write');
    expect(dropped.lateMs).toBeGreaterThanOrEqual(0);
    // Still answering, and the late request left nothing behind.
    expect((await request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${tenant.key}`)).status).toBe(200);
    expect(await countDebtors(stack, externalId)).toBe(0);
    expect(core.logs.filter((l) => l.msg === 'handled' && l.requestId === requestId)).toEqual([]);
  });
});

describe('an api-core replica that cannot reach Postgres', () => {
  let stack: Stack;
  let tenant: Tenant;
  let proxy: PostgresProxy;
  let cut: ServiceProcess;
  let cutHealthPort: number;

  beforeAll(async () => {
    stack = await Stack.start({ env: { API_CORE_POSTGRES_PROBE_MS: '200' } });
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
    proxy = await PostgresProxy.start();
    const url = new URL(stack.databaseUrl);
    url.port = String(proxy.port);
    cut = await stack.startService('api-core', { DATABASE_URL: url.toString() });
    cutHealthPort = Number((await cut.waitForLog((l) => l.msg === 'api-core ready')).healthPort);
  });
  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
  });

  const reads = async (n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i += 1) {
      statuses.push((await request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${tenant.key}`)).status);
    }
    return statuses;
  };
  const handledBy = (p: ServiceProcess) => p.logs.filter((l) => l.msg === 'handled' && l.pattern === 'portfolios.list').length;
  const readiness = async () => {
    const res = await fetch(`http://127.0.0.1:${cutHealthPort}/health/ready`);
    return { status: res.status, body: (await res.json()) as { status: string; details: Record<string, string> } };
  };

  it('leaves the queue group while Postgres is unreachable and rejoins when it is back', async () => {
    expect(await reads(20)).toEqual(Array(20).fill(200));
    expect(handledBy(cut)).toBeGreaterThan(0); // a member: NATS spreads requests over both replicas
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ok', details: { postgres: 'ok', nats: 'ok', queueGroup: 'ok' } } });

    await proxy.cut();
    await cut.waitForLog((l) => l.msg === 'left the queue group: postgres unreachable');
    const before = handledBy(cut);
    expect(await reads(20)).toEqual(Array(20).fill(200)); // all served by the healthy replica
    expect(handledBy(cut)).toBe(before);
    const down = await readiness();
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('unavailable');
    expect(down.body.details.queueGroup).toBe('left: postgres unreachable');
    expect(down.body.details.nats).toBe('ok');
    expect(down.body.details.postgres).not.toBe('ok');

    proxy.restore();
    await cut.waitForLog((l) => l.msg === 'rejoined the queue group: postgres reachable');
    expect(await reads(20)).toEqual(Array(20).fill(200));
    expect(handledBy(cut)).toBeGreaterThan(before);
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ok', details: { postgres: 'ok', nats: 'ok', queueGroup: 'ok' } } });
  }, 60_000);
});

/** A TCP relay to the real Postgres that the test can cut and restore (same port). */
class PostgresProxy {
  private readonly sockets = new Set<net.Socket>();
  private server: net.Server;

  private constructor(readonly port: number) {
    this.server = this.listen();
  }

  static async start(): Promise<PostgresProxy> {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const proxy = new PostgresProxy(port);
    await new Promise((resolve) => proxy.server.once('listening', resolve));
    return proxy;
  }

  private listen(): net.Server {
    const server = net.createServer((client) => {
      const upstream = net.connect(5432, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    server.listen(this.port, '127.0.0.1');
    return server;
  }

  async cut(): Promise<void> {
    const closed = new Promise((resolve) => this.server.close(resolve));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  restore(): void {
    this.server = this.listen();
  }

  async close(): Promise<void> {
    await this.cut().catch(() => undefined);
  }
}
