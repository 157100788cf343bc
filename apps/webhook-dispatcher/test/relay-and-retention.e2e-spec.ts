import { loadConfig } from '@dc/config';
import { Database } from '@dc/database';
import { createLogger } from '@dc/observability';
import { createTenant, fixtureId, OperatorClient, Stack, Tenant } from '@dc/testing';
import { Client } from 'pg';
import { ulid } from 'ulid';
import { Pruner } from '../src/pruning/pruner';
import { PruningRepository } from '../src/pruning/pruning.repository';
import { RelayRepository } from '../src/relay/relay.repository';

/**
 * The relay's matching rule for rows written before a webhook existed, and retention, run against
 * the real schema through the dispatcher's own repositories (no dispatcher process: the rows and
 * the moment each step runs are the subject here).
 */
describe('relay and retention of outbox events', () => {
  const DAY = 86_400_000;
  let stack: Stack;
  let pg: Client;
  let database: Database;
  /** As the dispatcher connects: the apps' role. */
  let appDatabase: Database;
  let tenant: Tenant;
  let webhookId: string;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    pg = new Client({ connectionString: stack.databaseUrl });
    await pg.connect();
    database = new Database(stack.databaseUrl, 2);
    appDatabase = new Database(stack.env.DATABASE_URL, 2);
    tenant = await createTenant(new OperatorClient(stack.operatorUrl), { name: 'Retention' });
  });
  afterAll(async () => {
    await database?.close();
    await appDatabase?.close();
    await pg?.end();
    await stack?.stop();
  });

  const insertEvent = async (id: string, options: { createdAt?: Date; relayedAt?: Date | null } = {}) => {
    await pg.query(
      `INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload, created_at, relayed_at)
       VALUES ($1, $2, $3, 'payment.registered', true, '{"id":"pay_x"}'::json, $4, $5)`,
      [id, tenant.organizationId, tenant.portfolioIds[0], options.createdAt ?? new Date(), options.relayedAt ?? null],
    );
    return id;
  };
  const deliveriesOf = async (eventId: string) =>
    (await pg.query<{ webhook_id: string; status: string }>('SELECT webhook_id, status FROM webhook_deliveries WHERE event_id = $1', [eventId])).rows;

  it('relays rows written before the webhook was registered to nobody, and later rows to it', async () => {
    const before = await insertEvent(fixtureId('evt'));
    await new Promise((r) => setTimeout(r, 20)); // created_at has millisecond precision
    const registered = await new OperatorClient(stack.operatorUrl).expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, {
      url: 'http://127.0.0.1:9/hook',
    });
    webhookId = registered.data.id;
    const after = await insertEvent(fixtureId('evt'));

    const relay = new RelayRepository(database);
    expect(await relay.relayBatch(500)).toEqual({ events: 2, deliveries: 1 });
    expect(await deliveriesOf(before)).toEqual([]);
    expect(await deliveriesOf(after)).toEqual([{ webhook_id: webhookId, status: 'pending' }]);
    const { rows } = await pg.query<{ id: string }>('SELECT id FROM outbox_events WHERE relayed_at IS NULL');
    expect(rows).toEqual([]);
    // A second pass finds nothing left and creates no second delivery.
    expect(await relay.relayBatch(500)).toEqual({ events: 0, deliveries: 0 });
  });

  it('drops the months of events, deliveries and attempts older than the retention (shortened to 0 days), keeps the current month; only those tables have partitions to drop — calls and promises keep every month (docs/adr/0051)', async () => {
    const old = new Date(Date.now() - 40 * DAY); // before the current month: the first partition
    const finished = await insertEvent(`evt_${ulid(old.getTime())}`, { createdAt: old, relayedAt: old });
    const unrelayed = await insertEvent(`evt_${ulid(old.getTime())}`, { createdAt: old, relayedAt: null });
    const recent = await insertEvent(fixtureId('evt'), { relayedAt: new Date() });
    const delivery = async (eventId: string) => {
      const [{ id }] = (await pg.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempt_count, queued_at, created_at)
         VALUES (dc_derived_id('dlv', $2, $1, $2), $1, $2, 'failed', 1, now(), now()) RETURNING id`,
        [webhookId, eventId],
      )).rows;
      await pg.query(
        `INSERT INTO webhook_delivery_attempts (id, delivery_id, number, status_code, duration_ms) VALUES (dc_derived_id('att', $1, $1, '1'), $1, 1, 500, 12)`,
        [id],
      );
      return id;
    };
    const oldDelivery = await delivery(finished);
    const recentDelivery = await delivery(recent);
    const partitions = async (table: string) =>
      (await pg.query<{ name: string }>(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`, [table])).rows.map((r) => r.name);

    // While another dispatcher holds the pruning lock, this one neither creates nor drops partitions.
    const holder = new Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT pg_advisory_xact_lock(hashtext('webhook-dispatcher:prune'))`);
    // As the apps' role, which has no DDL rights of its own (the functions do: docs/adr/0027).
    const repository = new PruningRepository(appDatabase);
    expect(await repository.dropPartitionsBefore('outbox_events', new Date())).toBeNull();
    expect(await repository.createPartitions(new Date(), 3)).toBeNull();
    await holder.query('ROLLBACK');
    await holder.end();

    const config = loadConfig('webhook-dispatcher', {});
    const pruner = new Pruner(repository, { ...config, webhooks: { ...config.webhooks, retentionDays: 0 } }, createLogger('test', 'silent'));
    // The old month still holds an event not relayed: its events stay, its deliveries and attempts go.
    expect((await pruner.run()).dropped).toEqual(['webhook_delivery_attempts_p_legacy', 'webhook_deliveries_p_legacy']);
    await pg.query('UPDATE outbox_events SET relayed_at = now() WHERE id = $1', [unrelayed]);
    expect((await pruner.run()).dropped).toEqual(['outbox_events_p_legacy']);

    const left = async (table: string, ids: string[]) =>
      (await pg.query<{ id: string }>(`SELECT id FROM ${table} WHERE id = ANY($1) ORDER BY id`, [ids])).rows.map((r) => r.id);
    expect(await left('outbox_events', [finished, unrelayed, recent])).toEqual([recent]);
    expect(await left('webhook_deliveries', [oldDelivery, recentDelivery])).toEqual([recentDelivery]);
    expect((await pg.query('SELECT delivery_id FROM webhook_delivery_attempts WHERE delivery_id = ANY($1)', [[oldDelivery, recentDelivery]])).rows).toEqual([{ delivery_id: recentDelivery }]);
    expect(await partitions('outbox_events')).toEqual(expect.arrayContaining([expect.stringMatching(/^outbox_events_p\d{6}$/)]));
    expect(await partitions('outbox_events')).not.toContain('outbox_events_p_legacy');
    await expect(pg.query(`SELECT dc_drop_partitions('payments', now())`)).rejects.toThrow('payments is not partitioned');
    // Calls and promises are partitioned too, but clients read them: no month of theirs is ever dropped.
    for (const table of ['calls', 'promises']) {
      expect(await partitions(table)).toEqual(expect.arrayContaining([`${table}_p_legacy`, expect.stringMatching(new RegExp(`^${table}_p\\d{6}$`))]));
      await expect(pg.query(`SELECT dc_drop_partitions($1, now() + interval '10 years')`, [table])).rejects.toThrow(`${table} keeps every row: its partitions are never dropped`);
    }
  });

  it('creates the months ahead of any date, for every partitioned table', async () => {
    const repository = new PruningRepository(appDatabase);
    const ahead = await repository.partitionsAheadSeconds();
    expect(ahead).toBeGreaterThan(60 * DAY / 1000); // the current month and 3 more from the migration
    const inSixMonths = new Date(Date.now() + 183 * DAY);
    const created = await repository.createPartitions(inSixMonths, 3);
    // The month six months from now and the 3 after it, for each of the 5 tables (outbox events,
    // deliveries, attempts, calls, promises).
    expect(created).toEqual({ created: 5 * 4, busy: [] });
    expect(await repository.partitionsAheadSeconds()).toBeGreaterThan(ahead + 90 * DAY / 1000);
    expect(await repository.createPartitions(inSixMonths, 3)).toEqual({ created: 0, busy: [] });
  });

  it('creating a month never holds up the writers of the tables its keys relate (docs/adr/0051)', async () => {
    const repository = new PruningRepository(appDatabase);
    const inAYear = new Date(Date.now() + 366 * DAY);
    // A long transaction has written a portfolio: the keys of a calls or promises partition need
    // portfolios in SHARE ROW EXCLUSIVE, which waits for it.
    const holder = new Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`UPDATE portfolios SET updated_at = now() WHERE id = $1`, [tenant.portfolioIds[0]]);
    // Meanwhile another writer of portfolios must not queue behind the partitions' lock for longer than a try.
    const writer = new Client({ connectionString: stack.databaseUrl });
    await writer.connect();
    const waits: number[] = [];
    let creating = true;
    const writes = (async () => {
      while (creating) {
        const started = performance.now();
        await writer.query(`INSERT INTO portfolios (id, organization_id, identity_name, identity_currency) VALUES ($1, $2, 'Busy', '{EUR}')`, [fixtureId('pf'), tenant.organizationId]);
        waits.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      // Calls and promises keep keys to portfolios: their month waits; the webhook tables' does not.
      expect(await repository.createPartitions(inAYear, 0)).toEqual({ created: 3, busy: ['calls', 'promises'] });
    } finally {
      creating = false;
      await writes;
      await holder.query('ROLLBACK');
      await holder.end();
      await writer.end();
    }
    expect(waits.length).toBeGreaterThan(10);
    expect(Math.max(...waits)).toBeLessThan(500);
    // Once the holder is gone, the next run makes them.
    expect(await repository.createPartitions(inAYear, 0)).toEqual({ created: 2, busy: [] });
  }, 120_000);

  it('each pruning run clears the previous secret of a rotation whose overlap ended, and keeps one still in its overlap (docs/adr/0048)', async () => {
    const operator = new OperatorClient(stack.operatorUrl);
    const register = async () =>
      (await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, { url: 'http://127.0.0.1:9/hook' })).data.id as string;
    const [ended, ongoing] = [await register(), await register()];
    await operator.expect(200, 'POST', `/webhooks/${ended}/rotate-secret`, { overlapSeconds: 60 });
    await operator.expect(200, 'POST', `/webhooks/${ongoing}/rotate-secret`, { overlapSeconds: 3600 });
    await pg.query(`UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [ended]);

    const config = loadConfig('webhook-dispatcher', { WEBHOOK_RETENTION_DAYS: '30' });
    await new Pruner(new PruningRepository(database), config, createLogger('test', 'silent')).run();
    const { rows } = await pg.query<{ id: string; previous_secret_ciphertext: string | null; previous_secret_expires_at: Date | null }>(
      'SELECT id, previous_secret_ciphertext, previous_secret_expires_at FROM webhooks WHERE id = ANY($1)', [[ended, ongoing]]);
    expect(rows.find((r) => r.id === ended)).toMatchObject({ previous_secret_ciphertext: null, previous_secret_expires_at: null });
    expect(rows.find((r) => r.id === ongoing)).toMatchObject({ previous_secret_ciphertext: expect.stringMatching(/^v2\./), previous_secret_expires_at: expect.any(Date) });
  });
});
