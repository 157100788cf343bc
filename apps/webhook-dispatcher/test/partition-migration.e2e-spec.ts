import { insertOrganization, MigrationDatabase } from '@dc/testing';
import { Client } from 'pg';
import { ulid } from 'ulid';

/**
 * The migration path of a populated database to partitioned webhook tables (docs/adr/0051): the
 * migrations before it, 30,000 events with their deliveries and attempts, then the partitioning
 * migrations applied while a writer keeps inserting events, deliveries and attempts. Nothing is lost,
 * the old rows become the first partition without being copied, and no insert waits long.
 */
describe('partitioning a populated database', () => {
  const FIRST = '20261201000000_partitioning_functions';
  const PARTITIONING = MigrationDatabase.between(FIRST, '20261201000200_partition_webhook_tables');
  const TABLES = ['outbox_events', 'webhook_deliveries', 'webhook_delivery_attempts'];
  const ROWS = 30_000;
  const DAY = 86_400_000;
  let database: MigrationDatabase;
  let db: Client;

  beforeAll(async () => {
    database = await MigrationDatabase.before(FIRST);
    db = database.client;
    await insertOrganization(db, 'org_m', ['pf_m']);
    await db.query(`INSERT INTO webhooks (id, organization_id, url, portfolio_ids, secret_ciphertext) VALUES ('whk_m', 'org_m', 'https://example.com/h', '{}', 'x')`);
    // Events of the last 60 days, each with a delivery and an attempt, as the relay and worker wrote them.
    await db.query(
      `INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload, created_at, relayed_at, feed_position)
       SELECT e, 'org_m', 'pf_m', 'payment.registered', true, '{}'::json, now(), now(), o FROM unnest($1::text[]) WITH ORDINALITY AS t(e, o)`,
      [Array.from({ length: ROWS }, (_, i) => `evt_${ulid(Date.now() - 60 * DAY + i * 1000)}`)],
    );
    await db.query(`INSERT INTO webhook_deliveries (id, webhook_id, event_id, status) SELECT 'dlv_' || substr(id, 5), 'whk_m', id, 'succeeded' FROM outbox_events`);
    await db.query(`INSERT INTO webhook_delivery_attempts (id, delivery_id, number, status_code, duration_ms) SELECT 'att_' || substr(id, 5), id, 1, 200, 5 FROM webhook_deliveries`);
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
  });

  it('keeps every row, attaches the old table as the first partition, and never holds a writer up', async () => {
    const writer = await database.connect();
    let writing = true;
    let written = 0;
    const waits: number[] = [];
    const writes = (async () => {
      while (writing) {
        const id = ulid();
        const started = performance.now();
        await writer.query(`INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload) VALUES ($1, 'org_m', 'pf_m', 'payment.registered', true, '{}'::json)`, [`evt_${id}`]);
        await writer.query(`INSERT INTO webhook_deliveries (id, webhook_id, event_id) VALUES ($1, 'whk_m', $2)`, [`dlv_${id}`, `evt_${id}`]);
        await writer.query(`INSERT INTO webhook_delivery_attempts (id, delivery_id, number, duration_ms) VALUES ($1, $2, 1, 5)`, [`att_${id}`, `dlv_${id}`]);
        waits.push(performance.now() - started);
        written += 1;
      }
    })();
    const durations: Record<string, number> = {};
    try {
      await new Promise((r) => setTimeout(r, 200));
      const migrator = await database.connect();
      for (const migration of PARTITIONING) durations[migration] = await database.apply(migration, migrator);
      await migrator.end();
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      writing = false;
      await writes;
      await writer.end();
    }
    expect(PARTITIONING).toHaveLength(3);
    expect(written).toBeGreaterThan(20);
    // The swap holds its lock for milliseconds: no write of the three waits a second.
    expect(Math.max(...waits)).toBeLessThan(1_000);

    for (const table of TABLES) {
      const { rows } = await db.query<{ kind: string; total: number; legacy: number; partitions: string[] }>(
        `SELECT (SELECT relkind FROM pg_class WHERE oid = $1::regclass) AS kind,
                (SELECT count(*)::int FROM ${table}) AS total,
                (SELECT count(*)::int FROM ${table}_p_legacy) AS legacy,
                (SELECT array_agg(c.relname::text ORDER BY c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass) AS partitions`,
        [table],
      );
      // Every row, old and written meanwhile, in the first partition (ids before `partitions_from`).
      expect([table, rows[0]]).toEqual([table, { kind: 'p', total: ROWS + written, legacy: ROWS + written, partitions: expect.arrayContaining([`${table}_p_legacy`]) }]);
      expect(rows[0].partitions.length).toBeGreaterThanOrEqual(2);
    }
    // The months with partitions of their own start at least a week and a month ahead: a populated
    // table's first partition takes every write until the swap, however long the migrations take.
    const { rows: from } = await db.query<{ months: number }>(
      `SELECT DISTINCT (extract(year FROM age(partitions_from, date_trunc('month', now()))) * 12 + extract(month FROM age(partitions_from, date_trunc('month', now()))))::int AS months FROM partitioned_tables`,
    );
    expect(from.map((r) => r.months)).toEqual([expect.any(Number)]);
    expect(from[0].months).toBeGreaterThanOrEqual(1);
    // A row of a partitioned month lands in its partition; the old table's range check is gone.
    const { rows: [month] } = await db.query<{ at: Date; partition: string }>(
      `SELECT partitions_from AS at, 'outbox_events_p' || to_char(partitions_from AT TIME ZONE 'UTC', 'YYYYMM') AS partition FROM partitioned_tables WHERE table_name = 'outbox_events'`,
    );
    const later = `evt_${ulid(month.at.getTime() + DAY)}`;
    await db.query(`INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload) VALUES ($1, 'org_m', 'pf_m', 'payment.registered', true, '{}'::json)`, [later]);
    expect((await db.query(`SELECT tableoid::regclass::text AS partition FROM outbox_events WHERE id = $1`, [later])).rows).toEqual([{ partition: month.partition }]);
    expect((await db.query(`SELECT conname FROM pg_constraint WHERE conname LIKE '%_before_partitions'`)).rows).toEqual([]);
    // The old indexes serve the first partition (attached, not rebuilt: they keep their names).
    expect((await db.query(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'outbox_events_p_legacy'::regclass ORDER BY 1`)).rows.map((r) => r.name))
      .toEqual(expect.arrayContaining(['outbox_events_p_legacy_pkey', 'outbox_events_portfolio_feed_idx_legacy']));
  }, 120_000);
});
