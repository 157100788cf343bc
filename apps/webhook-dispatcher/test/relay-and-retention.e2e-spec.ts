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
  let tenant: Tenant;
  let webhookId: string;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    pg = new Client({ connectionString: stack.databaseUrl });
    await pg.connect();
    database = new Database(stack.databaseUrl, 2);
    tenant = await createTenant(new OperatorClient(stack.operatorUrl), { name: 'Retention' });
  });
  afterAll(async () => {
    await database?.close();
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

  it('prunes relayed events older than the retention with their finished deliveries and attempts, and keeps everything else', async () => {
    const old = new Date(Date.now() - 40 * DAY);
    const oldId = () => `evt_${ulid(old.getTime())}`;
    const finished = await insertEvent(oldId(), { createdAt: old, relayedAt: old });
    const withPending = await insertEvent(oldId(), { createdAt: old, relayedAt: old });
    const withoutDeliveries = await insertEvent(oldId(), { createdAt: old, relayedAt: old });
    const unrelayed = await insertEvent(oldId(), { createdAt: old, relayedAt: null });
    const recent = await insertEvent(fixtureId('evt'), { relayedAt: new Date() });
    const delivery = async (eventId: string, status: string) => {
      const id = `dlv_${ulid(old.getTime())}`;
      await pg.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempt_count, queued_at, created_at)
         VALUES ($1, $2, $3, $4, 1, $5, $5)`,
        [id, webhookId, eventId, status, old],
      );
      await pg.query(
        `INSERT INTO webhook_delivery_attempts (id, delivery_id, number, status_code, duration_ms, created_at) VALUES ($1, $2, 1, 500, 12, $3)`,
        [fixtureId('att'), id, old],
      );
      return id;
    };
    const finishedDelivery = await delivery(finished, 'failed');
    const pendingDelivery = await delivery(withPending, 'pending');
    const recentDelivery = await delivery(recent, 'succeeded');

    // While another dispatcher holds the pruning lock, this one prunes nothing.
    const holder = new Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT pg_advisory_xact_lock(hashtext('webhook-dispatcher:prune'))`);
    const repository = new PruningRepository(database);
    expect(await repository.pruneBatch(`evt_${ulid(Date.now() - 30 * DAY)}`, 30, 1000)).toBeNull();
    await holder.query('ROLLBACK');
    await holder.end();

    const config = loadConfig('webhook-dispatcher', { WEBHOOK_RETENTION_DAYS: '30' });
    const pruner = new Pruner(repository, config, createLogger('test', 'silent'));
    expect(await pruner.run()).toBe(2);

    const left = async (table: string, ids: string[]) =>
      (await pg.query<{ id: string }>(`SELECT id FROM ${table} WHERE id = ANY($1) ORDER BY id`, [ids])).rows.map((r) => r.id).sort();
    expect(await left('outbox_events', [finished, withPending, withoutDeliveries, unrelayed, recent])).toEqual([withPending, unrelayed, recent].sort());
    expect(await left('webhook_deliveries', [finishedDelivery, pendingDelivery, recentDelivery])).toEqual([pendingDelivery, recentDelivery].sort());
    const attempts = await pg.query<{ delivery_id: string }>('SELECT delivery_id FROM webhook_delivery_attempts WHERE delivery_id = ANY($1)', [
      [finishedDelivery, pendingDelivery, recentDelivery],
    ]);
    expect(attempts.rows.map((r) => r.delivery_id).sort()).toEqual([pendingDelivery, recentDelivery].sort());
  });

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
