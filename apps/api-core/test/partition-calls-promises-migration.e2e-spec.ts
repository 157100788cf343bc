import { insertOrganization, MigrationDatabase } from '@dc/testing';
import { Client } from 'pg';
import { ulid } from 'ulid';

/**
 * The migration path of a populated database to partitioned calls and promises (docs/adr/0051): the
 * migrations before it, 30,000 calls, 10,000 promises on them and 5,000 payments of those promises,
 * then the six migrations applied while two writers go on, each in its own transactions and lock
 * order: one records a call, a promise on it, a payment of the promise and links the promise to it
 * (calls → promises → payments → promises); the other scrubs a debtor's activity as the erasure does
 * (debtors → calls → payments). Nothing is lost, no write fails or waits a second, the old rows
 * become the first partitions without being copied, and the keys between calls, promises and
 * payments hold on the partitioned tables.
 */
describe('partitioning calls and promises of a populated database', () => {
  const FIRST = '20261202000000_partition_calls_promises_ranges';
  const PARTITIONING = MigrationDatabase.between(FIRST, '20261202000500_validate_payments_promise_fk');
  const CALLS = 30_000;
  const PROMISES = 10_000;
  const PAYMENTS = 5_000;
  const DEBTORS = 1_000;
  const DAY = 86_400_000;
  let database: MigrationDatabase;
  let db: Client;

  beforeAll(async () => {
    database = await MigrationDatabase.before(FIRST);
    db = database.client;
    await insertOrganization(db, 'org_m', ['pf_m']);
    await db.query(`INSERT INTO debtors (id, portfolio_id) SELECT 'dbt_' || lpad(i::text, 26, '0'), 'pf_m' FROM generate_series(1, ${DEBTORS}) AS i`);
    // Calls of the last 60 days, a promise on every third, a payment of every second promise.
    await db.query(
      `INSERT INTO calls (id, portfolio_id, debtor_id, direction, status, from_number)
       SELECT c, 'pf_m', 'dbt_' || lpad((o % ${DEBTORS} + 1)::text, 26, '0'), 'outbound', 'completed', '+34600000000'
       FROM unnest($1::text[]) WITH ORDINALITY AS t(c, o)`,
      [Array.from({ length: CALLS }, (_, i) => `call_${ulid(Date.now() - 60 * DAY + i * 150_000)}`)],
    );
    await db.query(
      `INSERT INTO promises (id, portfolio_id, debtor_id, call_id, amount, currency, promise_date)
       SELECT 'prm_' || substr(id, 6), portfolio_id, debtor_id, id, 10, 'EUR', '2026-12-01'
       FROM (SELECT *, row_number() OVER (ORDER BY id) AS n FROM calls) c WHERE n % 3 = 0`,
    );
    await db.query(
      `INSERT INTO payments (id, portfolio_id, debtor_id, promise_id, amount, currency, payment_date, source)
       SELECT 'pay_' || substr(id, 5), portfolio_id, debtor_id, id, 10, 'EUR', '2026-11-01', 'api'
       FROM (SELECT *, row_number() OVER (ORDER BY id) AS n FROM promises) p WHERE n % 2 = 0`,
    );
    await db.query(`UPDATE promises pr SET payment_id = pa.id FROM payments pa WHERE pa.promise_id = pr.id`);
    expect((await db.query(`SELECT (SELECT count(*) FROM promises)::int AS promises, (SELECT count(*) FROM payments)::int AS payments`)).rows)
      .toEqual([{ promises: PROMISES, payments: PAYMENTS }]);
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
  });

  /** Runs `write` in a transaction until stopped; answers how many committed and the longest took. */
  async function keepWriting(write: (client: Client, i: number) => Promise<void>, running: () => boolean) {
    const client = await database.connect();
    let written = 0;
    let longest = 0;
    try {
      while (running()) {
        const started = performance.now();
        await client.query('BEGIN');
        await write(client, written);
        await client.query('COMMIT');
        longest = Math.max(longest, performance.now() - started);
        written += 1;
      }
    } finally {
      await client.end();
    }
    return { written, longest };
  }

  it('keeps every row and key, attaches the old tables as first partitions, and never fails or holds a writer up', async () => {
    let writing = true;
    const running = () => writing;
    const recorder = keepWriting(async (client) => {
      const id = ulid();
      await client.query(`INSERT INTO calls (id, portfolio_id, debtor_id, direction, status) VALUES ($1, 'pf_m', $2, 'inbound', 'completed')`, [`call_${id}`, 'dbt_' + '1'.padStart(26, '0')]);
      await client.query(
        `INSERT INTO promises (id, portfolio_id, debtor_id, call_id, amount, currency, promise_date) VALUES ($1, 'pf_m', $2, $3, 5, 'EUR', '2026-12-01')`,
        [`prm_${id}`, 'dbt_' + '1'.padStart(26, '0'), `call_${id}`],
      );
      await client.query(
        `INSERT INTO payments (id, portfolio_id, debtor_id, promise_id, amount, currency, payment_date, source) VALUES ($1, 'pf_m', $2, $3, 5, 'EUR', '2026-11-29', 'api')`,
        [`pay_${id}`, 'dbt_' + '1'.padStart(26, '0'), `prm_${id}`],
      );
      await client.query(`UPDATE promises SET payment_id = $1, status = 'fulfilled' WHERE id = $2`, [`pay_${id}`, `prm_${id}`]);
    }, running);
    const eraser = keepWriting(async (client, i) => {
      const debtor = 'dbt_' + String((i % DEBTORS) + 1).padStart(26, '0');
      await client.query(`UPDATE debtors SET updated_at = now() WHERE id = $1`, [debtor]);
      await client.query(`UPDATE calls SET from_number = NULL, updated_at = now() WHERE debtor_id = $1`, [debtor]);
      await client.query(`UPDATE payments SET reference = NULL, updated_at = now() WHERE debtor_id = $1`, [debtor]);
    }, running);
    const durations: Record<string, number> = {};
    try {
      await new Promise((r) => setTimeout(r, 200));
      const migrator = await database.connect();
      try {
        for (const migration of PARTITIONING) durations[migration] = await database.apply(migration, migrator);
      } finally {
        await migrator.end();
      }
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      writing = false;
    }
    const [recorded, erased] = await Promise.all([recorder, eraser]);
    expect(PARTITIONING).toHaveLength(6);
    expect(recorded.written).toBeGreaterThan(20);
    expect(erased.written).toBeGreaterThan(20);
    // Each swap takes its tables at once or not at all, 200 ms at a time: no transaction waits a second.
    expect(Math.max(recorded.longest, erased.longest)).toBeLessThan(1_000);

    const expected = { calls: CALLS + recorded.written, promises: PROMISES + recorded.written };
    for (const table of ['calls', 'promises'] as const) {
      const { rows } = await db.query<{ kind: string; total: number; legacy: number; partitions: number }>(
        `SELECT (SELECT relkind FROM pg_class WHERE oid = $1::regclass) AS kind,
                (SELECT count(*)::int FROM ${table}) AS total,
                (SELECT count(*)::int FROM ${table}_p_legacy) AS legacy,
                (SELECT count(*)::int FROM pg_inherits WHERE inhparent = $1::regclass) AS partitions`,
        [table],
      );
      // Every row, old and written meanwhile, in the first partition (ids before `partitions_from`).
      expect([table, rows[0]]).toEqual([table, { kind: 'p', total: expected[table], legacy: expected[table], partitions: expect.any(Number) }]);
      expect(rows[0].partitions).toBeGreaterThanOrEqual(2);
    }
    // The keys point at the partitioned tables and are valid; the range checks are gone.
    const { rows: keys } = await db.query(
      `SELECT conname, confrelid::regclass::text AS parent, convalidated FROM pg_constraint
       WHERE conname IN ('promises_call_id_fkey', 'payments_promise_id_fkey') AND conparentid = 0 ORDER BY conname`,
    );
    expect(keys).toEqual([
      { conname: 'payments_promise_id_fkey', parent: 'promises', convalidated: true },
      { conname: 'promises_call_id_fkey', parent: 'calls', convalidated: true },
    ]);
    expect((await db.query(`SELECT conname FROM pg_constraint WHERE conname LIKE '%_before_partitions'`)).rows).toEqual([]);
    // The old indexes serve the first partitions (attached, not rebuilt: they keep their names).
    expect((await db.query(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'calls_p_legacy'::regclass ORDER BY 1`)).rows.map((r) => r.name))
      .toEqual(expect.arrayContaining(['calls_p_legacy_pkey', 'calls_status_portfolio_id_id_idx_legacy']));

    // A call and a promise of a partitioned month land in its partitions, and the keys find them there.
    const { rows: [month] } = await db.query<{ at: Date; suffix: string }>(
      `SELECT partitions_from AS at, to_char(partitions_from AT TIME ZONE 'UTC', 'YYYYMM') AS suffix FROM partitioned_tables WHERE table_name = 'calls'`,
    );
    const later = ulid(month.at.getTime() + DAY);
    const debtor = 'dbt_' + '2'.padStart(26, '0');
    await db.query(`INSERT INTO calls (id, portfolio_id, debtor_id, direction, status) VALUES ($1, 'pf_m', $2, 'outbound', 'completed')`, [`call_${later}`, debtor]);
    await db.query(`INSERT INTO promises (id, portfolio_id, debtor_id, call_id, amount, currency, promise_date) VALUES ($1, 'pf_m', $2, $3, 5, 'EUR', '2026-12-01')`, [`prm_${later}`, debtor, `call_${later}`]);
    await db.query(`INSERT INTO payments (id, portfolio_id, debtor_id, promise_id, amount, currency, payment_date, source) VALUES ($1, 'pf_m', $2, $3, 5, 'EUR', '2026-12-02', 'api')`, [`pay_${later}`, debtor, `prm_${later}`]);
    expect((await db.query(`SELECT tableoid::regclass::text AS partition FROM calls WHERE id = $1 UNION ALL SELECT tableoid::regclass::text FROM promises WHERE id = $2`, [`call_${later}`, `prm_${later}`])).rows)
      .toEqual([{ partition: `calls_p${month.suffix}` }, { partition: `promises_p${month.suffix}` }]);
    await expect(db.query(`INSERT INTO promises (id, portfolio_id, debtor_id, call_id, amount, currency, promise_date) VALUES ($1, 'pf_m', $2, 'call_missing', 5, 'EUR', '2026-12-01')`, [`prm_${ulid()}`, debtor]))
      .rejects.toMatchObject({ code: '23503', constraint: 'promises_call_id_fkey' });
    await expect(db.query(`INSERT INTO payments (id, portfolio_id, debtor_id, promise_id, amount, currency, payment_date, source) VALUES ($1, 'pf_m', $2, 'prm_missing', 5, 'EUR', '2026-12-02', 'api')`, [`pay_${ulid()}`, debtor]))
      .rejects.toMatchObject({ code: '23503', constraint: 'payments_promise_id_fkey' });
    // A call a promise points at, in either partition, cannot be deleted from under it.
    await expect(db.query(`DELETE FROM calls WHERE id = $1`, [`call_${later}`])).rejects.toMatchObject({ code: '23503' });
    await expect(db.query(`DELETE FROM calls WHERE id = (SELECT call_id FROM promises WHERE call_id IS NOT NULL ORDER BY id LIMIT 1)`)).rejects.toMatchObject({ code: '23503' });
  }, 180_000);
});
