import { Database, ReadRouter, ReadRoutingObserver, RedisWritePositions } from '@dc/database';
import {
  createTenant, enqueueImport, eventually, OPERATOR_TOKEN, OperatorClient, PrivatePostgres, ServiceProcess, Stack, Tenant, uploadCsv, waitForImport, withDatabase,
} from '@dc/testing';
import { Client } from 'pg';
import Redis from 'ioredis';
import request from 'supertest';

/**
 * Read replicas with read-your-writes (docs/adr/0050), against a real streaming replica of a private
 * cluster: public reads run on the replica; a key's reads after its own write (a batch, a payment, the
 * completion of its import) show that write even while the replica's replay is paused; a replica that
 * stops answering or lags past the bound leaves the rotation and the primary serves every read.
 */
describe('read replicas', () => {
  let primary: PrivatePostgres;
  let replica: PrivatePostgres;
  let stack: Stack;
  let tenant: Tenant;
  let metricsUrl: string;

  /** SQL on the replica as its superuser (pausing and resuming replay). */
  const onReplica = async (text: string) => {
    const client = new Client({ connectionString: replica.url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };

  const get = (path: string, key: string) => request(stack.publicUrl).get(`/public/v1${path}`).set('Authorization', `Bearer ${key}`);
  let seq = 0;
  const batch = async (portfolioId: string) => {
    const externalId = `rr-${(seq += 1)}`;
    const res = await request(stack.publicUrl).post(`/public/v1/portfolios/${portfolioId}/debtors`).set('Authorization', `Bearer ${tenant.key}`)
      .send({ debtors: [{ externalId, identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: `DOC-${externalId}` }] });
    expect(res.status).toBe(200);
    return res.body.data.results[0].id as string;
  };

  /** api-core's counters of where reads ran, by `target/reason`. */
  const reads = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
    const counts: Record<string, number> = {};
    for (const m of text.matchAll(/^api_core_db_reads_total\{target="(\w+)",reason="(\w+)"\} (\d+)$/gm)) counts[`${m[1]}/${m[2]}`] = Number(m[3]);
    return counts;
  };
  const grown = (before: Record<string, number>, after: Record<string, number>) =>
    Object.fromEntries(Object.entries(after).filter(([k, v]) => v !== (before[k] ?? 0)).map(([k, v]) => [k, v - (before[k] ?? 0)]));
  const rotation = async () => {
    const text = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
    return [...text.matchAll(/^api_core_replica_in_rotation\{replica="[^"]+",reason="(\w*)"\} (\d)$/gm)].map((m) => `${m[2]}${m[1] ? ` ${m[1]}` : ''}`);
  };

  beforeAll(async () => {
    primary = await PrivatePostgres.create();
    const database = await primary.createDatabase();
    replica = await PrivatePostgres.replicaOf(primary);
    stack = await Stack.start({
      database,
      env: {
        DATABASE_REPLICA_URLS: replica.appUrl,
        // A paused replica stays in rotation for the whole file but the lag test (its own router, below).
        DATABASE_REPLICA_MAX_LAG_MS: '600000',
        DATABASE_REPLICA_WAIT_MS: '200',
        DATABASE_REPLICA_PROBE_MS: '100',
        RATE_LIMIT_PER_MINUTE: '1000000',
      },
    });
    const ready = await stack.apiCores[0].waitForLog((l) => l.msg === 'api-core ready');
    metricsUrl = `http://127.0.0.1:${String(ready.healthPort)}/metrics`;
    tenant = await createTenant(new OperatorClient(stack.operatorUrl), { portfolios: 2 });
    await eventually(async () => expect(await rotation()).toEqual(['1']));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await replica?.destroy();
    await primary?.destroy();
  });

  it('reads run on the replica; a key reads its own batch at once', async () => {
    const before = await reads();
    const id = await batch(tenant.portfolioIds[0]);
    const own = await get(`/debtors/${id}`, tenant.key);
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ id, externalId: `rr-${seq}` });
    // The other key (no write of its own) reads the replica, which shows the batch once replayed.
    await eventually(async () => expect((await get(`/debtors/${id}`, tenant.readKey)).status).toBe(200));
    const counted = grown(before, await reads());
    expect(Object.keys(counted).every((k) => k.startsWith('replica/'))).toBe(true);
    expect(Object.values(counted).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
  });

  describe('while the replica replays nothing (pg_wal_replay_pause)', () => {
    beforeAll(async () => {
      await onReplica('SELECT pg_wal_replay_pause()');
    });
    afterAll(async () => {
      await onReplica('SELECT pg_wal_replay_resume()');
    });

    it("the writer reads its batch from the primary; another key still reads the replica's past", async () => {
      const before = await reads();
      const id = await batch(tenant.portfolioIds[0]);
      const own = await get(`/debtors/${id}`, tenant.key);
      expect(own.status).toBe(200);
      expect(own.body.data.id).toBe(id);
      const other = await get(`/debtors/${id}`, tenant.readKey);
      expect(other.status).toBe(404);
      expect(other.body.error.code).toBe('not_found');
      expect(grown(before, await reads())).toEqual({ 'primary/replica_behind': 1, 'replica/replica': 1 });
    });

    it('a payment: the writer reads it back at once, by id and in its list', async () => {
      const debtorId = await batch(tenant.portfolioIds[0]);
      const paid = await request(stack.publicUrl).post('/public/v1/payments').set('Authorization', `Bearer ${tenant.key}`)
        .send({ externalId: `rr-pay-${seq}`, portfolioId: tenant.portfolioIds[0], debtorId, amount: 12.5, currency: 'EUR', paymentDate: '2026-11-01' });
      expect(paid.status).toBe(201);
      const id = paid.body.data.id as string;
      expect((await get(`/payments/${id}`, tenant.key)).body.data).toEqual(paid.body.data);
      expect((await get(`/payments?debtorId=${debtorId}`, tenant.key)).body.data).toEqual([paid.body.data]);
      expect((await get(`/payments/${id}`, tenant.readKey)).status).toBe(404);
    });

    it('an import: once completed, the key that enqueued it lists its rows', async () => {
      const importer: ServiceProcess = await stack.startService('importer');
      await importer.waitForLog((l) => l.msg === 'importer ready', 20_000);
      const portfolioId = tenant.portfolioIds[1];
      const csv = 'debtor_external_id,identity_first_name,identity_document_type,identity_document_number\nimp-1,Ana,national_id,11111111A\nimp-2,Luis,national_id,22222222B\n';
      const storageKey = await uploadCsv(stack.publicUrl, tenant.key, portfolioId, Buffer.from(csv));
      const columnMapping = ['debtor_external_id', 'identity_first_name', 'identity_document_type', 'identity_document_number'].map((c) => ({ sourceColumn: c, targetField: c }));
      const queued = await enqueueImport(stack.publicUrl, tenant.key, portfolioId, { storageKey, columnMapping });
      expect(queued.status).toBe(202);
      expect((await waitForImport(stack.publicUrl, tenant.key, queued.body.data.id)).status).toBe('completed');
      const listed = await get(`/debtors?portfolioId=${portfolioId}`, tenant.key);
      expect(listed.body.data.map((d: { externalId: string }) => d.externalId)).toEqual(['imp-1', 'imp-2']);
      expect((await get(`/debtors?portfolioId=${portfolioId}`, tenant.readKey)).body.data).toEqual([]);
    }, 60_000);
  });

  it('after replay resumes, every key reads the replica again and sees it all', async () => {
    await eventually(async () => expect((await get(`/debtors?portfolioId=${tenant.portfolioIds[1]}`, tenant.readKey)).body.data).toHaveLength(2), 10_000);
    const before = await reads();
    expect((await get(`/debtors?portfolioId=${tenant.portfolioIds[0]}`, tenant.key)).status).toBe(200);
    // The writer's key still has a recent write: it runs on the replica once the replica is known to have replayed it.
    expect(Object.entries(grown(before, await reads()))).toEqual([[expect.stringMatching(/^replica\/replica(_caught_up)?$/), 1]]);
  });

  it('a replica that stops answering leaves the rotation, the primary serves every read, and it comes back', async () => {
    await replica.stop();
    try {
      for (let i = 0; i < 5; i += 1) expect((await get(`/debtors?portfolioId=${tenant.portfolioIds[1]}`, tenant.readKey)).status).toBe(200);
      await eventually(async () => expect(await rotation()).toEqual(['0 unreachable']));
      const before = await reads();
      const listed = await get(`/debtors?portfolioId=${tenant.portfolioIds[1]}`, tenant.readKey);
      expect(listed.body.data).toHaveLength(2);
      expect(grown(before, await reads())).toEqual({ 'primary/no_replica': 1 });
    } finally {
      await replica.start();
    }
    await eventually(async () => expect(await rotation()).toEqual(['1']), 15_000);
  }, 60_000);

  it('a replica lagging past DATABASE_REPLICA_MAX_LAG_MS leaves the rotation until it catches up', async () => {
    const database = new Database(primary.appUrl, 2);
    const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
    const states: string[] = [];
    const observer: ReadRoutingObserver = {
      read: () => undefined,
      waited: () => undefined,
      unrecorded: () => undefined,
      replica: (_name, lag, inRotation, reason) => states.push(inRotation ? 'in' : `out ${String(reason)}`),
    };
    const settings = { urls: [replica.appUrl], maxLagMs: 400, waitMs: 50, probeIntervalMs: 50 };
    const router = ReadRouter.open(database, settings, 2, {}, new RedisWritePositions(redis, `rr-${process.pid}`, ReadRouter.rememberWritesMs(settings)), observer);
    await router.start();
    try {
      expect(router.describe()).toEqual([expect.objectContaining({ inRotation: true, reason: null, lagMs: expect.any(Number) })]);
      await onReplica('SELECT pg_wal_replay_pause()');
      await batch(tenant.portfolioIds[0]); // WAL to replay
      await eventually(() => expect(router.describe()[0]).toMatchObject({ inRotation: false, reason: 'lagging' }));
      expect(router.describe()[0].lagMs).toBeGreaterThan(400);
      await onReplica('SELECT pg_wal_replay_resume()');
      await eventually(() => expect(router.describe()[0]).toMatchObject({ inRotation: true, reason: null, lagMs: 0 }));
      // A WAL segment switch moves the primary's position to the next segment with nothing after it:
      // the replica's replay position lands there too, so an idle primary never looks ahead.
      await withDatabase(primary.adminUrl, (c) => c.query('SELECT pg_switch_wal()'));
      await new Promise((r) => setTimeout(r, 600));
      expect(router.describe()[0]).toMatchObject({ inRotation: true, reason: null, lagMs: 0 });
      expect(states.slice(0, 1)).toEqual(['in']);
      expect(states).toContain('out lagging');
      expect(states[states.length - 1]).toBe('in');
    } finally {
      await onReplica('SELECT pg_wal_replay_resume()');
      await router.stop();
      await database.close();
      redis.disconnect();
    }
  });
});
