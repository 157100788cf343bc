import {
  createTenant, enqueueImport, eventually, generateCsv, generatedHeader, identityMapping, OperatorClient, AclRedis, ServiceProcess, Stack, Tenant,
  uploadCsv, waitForImport, WebhookReceiver, withDatabase,
} from '@dc/testing';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Internal credentials, Redis and Postgres part (docs/adr/0027): the four services run
 * against Redis servers of this test with the platform's ACL (docker/redis/acl.js), each as its
 * own user, and against Postgres as the apps' role. They serve requests, keep idempotency records
 * (compressed, in a Redis of their own), enqueue and work an import and deliver a webhook, with
 * no command refused; each user is then refused what belongs to another service, and nobody
 * without credentials gets in.
 */
describe('internal credentials: Redis ACL users per service, the apps’ Postgres role', () => {
  const prefix = `acl${randomBytes(4).toString('hex')}`;
  let main: AclRedis;
  let idempotency: AclRedis;
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  let admin: Redis;
  const clients: Redis[] = [];
  const as = (redis: AclRedis, user?: string, password?: string) => {
    const client = redis.client(user, password, { lazyConnect: true, retryStrategy: () => null });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    main = await AclRedis.start({ prefix });
    // The Redis of idempotency records: bounded, least recently used records evicted first.
    idempotency = await AclRedis.start({ prefix, server: 'idempotency', args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'] });
    admin = main.admin();
    clients.push(admin);
    receiver = await WebhookReceiver.start();
    stack = await Stack.start({
      env: {
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_PER_MINUTE: '1000000',
        NATS_REQUEST_TIMEOUT_MS: '20000',
        HTTP_COMPRESS_MIN_BYTES: '0',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RELAY_INTERVAL_MS: '100',
        IMPORT_ANALYZE_AFTER_ROWS: '10',
      },
      appEnv: {
        gateway: {
          ...main.envFor('gateway'),
          IDEMPOTENCY_REDIS_URL: idempotency.url,
          IDEMPOTENCY_REDIS_PASSWORD: idempotency.passwords.gateway,
        },
        'api-core': main.envFor('api-core'),
        importer: main.envFor('importer'),
        'webhook-dispatcher': main.envFor('webhook-dispatcher'),
      },
    });
    await Promise.all([
      stack.startService('importer').then((p) => p.waitForLog((l) => l.msg === 'importer ready', 20_000)),
      stack.startService('webhook-dispatcher').then((p) => p.waitForLog((l) => l.msg === 'webhook-dispatcher ready', 20_000)),
    ]);
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator);
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await receiver?.close();
    await stack?.stop();
    await main?.stop();
    await idempotency?.stop();
  });

  const pf = () => tenant.portfolioIds[0];
  const batch = (tag: string, n: number) => ({
    debtors: Array.from({ length: n }, (_, i) => ({
      externalId: `${tag}-${i}`,
      identityFirstName: 'Ana',
      identityDocumentType: 'national_id',
      identityDocumentNumber: `${tag}D${i}`,
      debts: [{ externalId: `${tag}-debt-${i}`, totalAmount: 100 + i, currency: 'EUR' }],
    })),
  });
  const postBatch = (body: unknown, idempotencyKey: string) =>
    fetch(`${stack.publicUrl}/public/v1/portfolios/${pf()}/debtors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey, 'accept-encoding': 'identity' },
      body: JSON.stringify(body),
    });

  it('runs the whole platform as its ACL users: batch with replay, import, webhook delivery; no command refused', async () => {
    const idemAdmin = idempotency.admin();
    clients.push(idemAdmin);
    // A large debtor batch: the response replays byte-identical from a compressed record kept in the idempotency Redis.
    const first = await postBatch(batch('big', 500), 'big-batch');
    expect(first.status).toBe(200);
    const firstBytes = Buffer.from(await first.arrayBuffer());
    expect(first.headers.get('content-encoding')).toBeNull();
    const again = await postBatch(batch('big', 500), 'big-batch');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(Buffer.from(await again.arrayBuffer()).equals(firstBytes)).toBe(true);
    // The API key's record set (a hash) and its order (a sorted set); the claim is gone.
    const keys = (await idemAdmin.keys(`${prefix}:idem:*`)).sort();
    expect(keys).toEqual([expect.stringMatching(/:idem:\{key_\w+\}:order$/), expect.stringMatching(/:idem:\{key_\w+\}:records$/)]);
    const stored = await idemAdmin.hstrlen(keys[1], 'k:big-batch');
    expect(firstBytes.length).toBeGreaterThan(50_000);
    expect(stored).toBeLessThan(firstBytes.length / 4);
    expect(await admin.keys(`${prefix}:idem:*`)).toEqual([]); // not in the main Redis
    expect(await admin.keys(`${prefix}:rl:*`)).toHaveLength(1); // the rate limit is

    // An import: api-core enqueues (producer), the importer works it and ANALYZEs through the definer function.
    const rows = 30;
    const csv = generateCsv(rows, { prefix: 'acl' });
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf(), csv);
    const enqueued = await enqueueImport(stack.publicUrl, tenant.key, pf(), { storageKey, columnMapping: identityMapping(generatedHeader()) });
    expect(enqueued.status).toBe(202);
    const done = await waitForImport(stack.publicUrl, tenant.key, enqueued.body.data!.id);
    expect(done).toMatchObject({ status: 'completed', created: rows, errors: 0 });
    expect((await admin.keys(`{${prefix}}:imports:*`)).length).toBeGreaterThan(0);

    // A webhook delivery: the dispatcher's relay enqueues, its worker sends.
    await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, { url: receiver.url });
    const debtorId = (JSON.parse(firstBytes.toString('utf8')) as { data: { results: { id: string }[] } }).data.results[0].id;
    const paid = await fetch(`${stack.publicUrl}/public/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ externalId: 'acl-pay-1', portfolioId: pf(), debtorId, amount: 10, currency: 'EUR', paymentDate: '2026-01-15', method: 'card' }),
    });
    expect(paid.status).toBe(201);
    await eventually(() => expect(receiver.requests.map((r) => r.headers['x-service-event'])).toContain('payment.registered'), 20_000);
    expect((await admin.keys(`{${prefix}}:webhook-deliveries:*`)).length).toBeGreaterThan(0);

    // Not one command or key of that work, or of the start-ups before it, was refused (the ACL log is the servers' own).
    expect(await admin.acl('LOG')).toEqual([]);
    expect(await idemAdmin.acl('LOG')).toEqual([]);
  }, 90_000);

  it('refuses a client without credentials (NOAUTH) or with a wrong password (WRONGPASS), on both servers', async () => {
    for (const redis of [main, idempotency]) {
      await expect(as(redis).get(`${prefix}:idem:x`)).rejects.toThrow(/^NOAUTH Authentication required/);
      await expect(as(redis, 'gateway', 'wrong').ping()).rejects.toThrow(/WRONGPASS/);
      await expect(as(redis, 'default', '').ping()).rejects.toThrow(/WRONGPASS|NOAUTH/);
    }
  });

  it('gives each user only its own keys: no service reads another’s, nobody runs dangerous commands', async () => {
    const noperm = /^NOPERM/;
    await admin.set(`${prefix}:payload:parked`, 'a debtor batch body', 'EX', 60);
    await admin.set(`${prefix}:idem:key:k`, '{}', 'EX', 60);
    const dispatcher = as(main, 'webhook-dispatcher');
    await expect(dispatcher.get(`${prefix}:idem:key:k`)).rejects.toThrow(noperm);
    await expect(dispatcher.get(`${prefix}:payload:parked`)).rejects.toThrow(noperm);
    await expect(dispatcher.zcard(`{${prefix}}:imports:wait`)).rejects.toThrow(noperm);
    const importer = as(main, 'importer');
    await expect(importer.getdel(`${prefix}:payload:parked`)).rejects.toThrow(noperm);
    await expect(importer.llen(`{${prefix}}:webhook-deliveries:wait`)).rejects.toThrow(noperm);
    const gateway = as(main, 'gateway');
    // The queue board reads both queues (a read-only selector, docs/adr/0032) and can change nothing in them.
    expect(await gateway.llen(`{${prefix}}:imports:wait`)).toEqual(expect.any(Number));
    expect(await gateway.hgetall(`{${prefix}}:webhook-deliveries:meta`)).toEqual(expect.any(Object));
    await expect(gateway.lpush(`{${prefix}}:imports:wait`, 'x')).rejects.toThrow(noperm);
    await expect(gateway.hset(`{${prefix}}:webhook-deliveries:meta`, 'paused', '1')).rejects.toThrow(noperm);
    await expect(gateway.eval("return redis.call('del', KEYS[1])", 1, `{${prefix}}:imports:meta`)).rejects.toThrow(/can't access at least one of the keys/);
    await expect(gateway.get(`${prefix}:other`)).rejects.toThrow(noperm);
    const core = as(main, 'api-core');
    await expect(core.get(`${prefix}:idem:key:k`)).rejects.toThrow(noperm);
    await expect(core.get(`${prefix}:rl:anything`)).rejects.toThrow(noperm);
    expect(await core.getdel(`${prefix}:payload:parked`)).toBe('a debtor batch body'); // api-core's own use
    for (const client of [dispatcher, importer, gateway, core]) {
      await expect(client.flushall()).rejects.toThrow(noperm);
      await expect(client.keys('*')).rejects.toThrow(noperm);
      await expect(client.config('GET', 'requirepass')).rejects.toThrow(noperm);
    }
    // Another deployment's prefix on the same Redis is out of reach too.
    await expect(as(main, 'importer').llen(`{other${prefix}}:imports:wait`)).rejects.toThrow(noperm);
    // The idempotency Redis knows the gateway alone, for its records alone.
    await expect(as(idempotency, 'webhook-dispatcher', main.passwords['webhook-dispatcher']).ping()).rejects.toThrow(/WRONGPASS/);
    await expect(as(idempotency, 'gateway', idempotency.passwords.gateway).get(`${prefix}:rl:x`)).rejects.toThrow(noperm);
  });

  it('runs the apps as a Postgres role without DDL rights, which the statistics function still serves', async () => {
    const appUrl = stack.env.DATABASE_URL;
    expect(new URL(appUrl).username).toBe('dc_app');
    await withDatabase(appUrl, async (c) => {
      const denied = async (sql: string) => expect(c.query(sql)).rejects.toThrow(/^(permission denied|must be owner)/);
      await denied('CREATE TABLE intruder (id int)');
      await denied('DROP TABLE payments');
      await denied('ALTER TABLE debtors ADD COLUMN x int');
      await denied('TRUNCATE debtors');
      await denied('CREATE INDEX intruder ON debtors (id)');
      await denied('SELECT * FROM _prisma_migrations');
      // Row access is what the apps need.
      expect((await c.query('SELECT count(*)::int AS n FROM debtors')).rows[0].n).toBeGreaterThan(0);
    });
    // The import above (30 rows, IMPORT_ANALYZE_AFTER_ROWS=10) refreshed the statistics as the apps'
    // role: a plain ANALYZE by a non-owner is skipped with a mere warning.
    await withDatabase(stack.databaseUrl, async (c) => {
      const { rows } = await c.query(`SELECT relname, last_analyze FROM pg_stat_user_tables WHERE relname IN ('debtors', 'debts') ORDER BY relname`);
      expect(rows).toEqual([
        { relname: 'debtors', last_analyze: expect.any(Date) },
        { relname: 'debts', last_analyze: expect.any(Date) },
      ]);
    });
  });

  it('refuses to start a service without its Redis password in production (clear message, exit 78)', async () => {
    const gateway = new ServiceProcess('gateway', { ...stack.env, ...main.envFor('gateway'), REDIS_PASSWORD: '', NODE_ENV: 'production' });
    expect(await gateway.exitCode()).toBe(78);
    expect(gateway.errorOutput).toContain("REDIS_PASSWORD is required in production (the password of this service's Redis ACL user");
  });
});
