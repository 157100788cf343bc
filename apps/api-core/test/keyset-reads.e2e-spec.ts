import { AuthContext } from '@dc/contracts';
import { Database, ReadRouter } from '@dc/database';
import { createTestDatabase } from '@dc/testing';
import { Client } from 'pg';
import { reachableDebtorsSql, DebtorsRepository } from '../src/debtors/debtors.repository';
import { reachableDebtsSql, DebtsRepository } from '../src/debts/debts.repository';
import { callsPageSql, CallsRepository } from '../src/calls/calls.repository';
import { paymentsPageSql, PaymentsRepository } from '../src/payments/payments.repository';
import { planBuffers } from './plan-buffers';

/**
 * The hand-written keyset reads against a real Postgres, with their plans forced to the generic
 * ones Postgres may switch a prepared statement to after five executions: pages must cost the same
 * at any depth and never walk another organization's rows, and page walks return every readable
 * row exactly once. Organization A (a big and a small portfolio) and organization B share the
 * tables, their ids interleaved.
 */
const ROWS = 6000;
const id = (prefix: string, n: number) => `${prefix}_${String(n).padStart(26, '0')}`;
const A: AuthContext = { organizationId: 'org_a', apiKeyId: 'key_a', portfolioIds: [] };

describe('keyset reads (debtors, debts): cost independent of depth and of other tenants', () => {
  let db: { url: string; drop: () => Promise<void> };
  let client: Client;
  let database: Database;
  const aDebtors: string[] = [];
  const smallPortfolioDebtors: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
    await client.query(`
      INSERT INTO organizations (id, name) VALUES ('org_a', 'A'), ('org_b', 'B');
      INSERT INTO portfolios (id, organization_id, identity_name, identity_currency) VALUES
        ('pf_a1', 'org_a', 'A1', '{EUR}'), ('pf_a2', 'org_a', 'A2', '{EUR}');
      INSERT INTO portfolios (id, organization_id, identity_name, identity_currency)
        SELECT 'pf_b' || g, 'org_b', 'B' || g, '{EUR}' FROM generate_series(1, 20) g;
      INSERT INTO debtors (id, portfolio_id, external_id, status)
        SELECT 'dbt_' || lpad(g::text, 26, '0'),
               CASE WHEN g % 200 = 1 THEN 'pf_a2' WHEN g % 2 = 0 THEN 'pf_a1' ELSE 'pf_b' || (g % 20 + 1) END,
               'EXT-' || g, CASE WHEN g % 10 = 0 THEN 'settled' ELSE 'active' END
        FROM generate_series(1, ${ROWS}) g;
      UPDATE debtors SET deleted_at = now() WHERE id = '${id('dbt', 2)}';
      UPDATE debtors SET deleted_at = now(), erased_at = now(), external_id = NULL WHERE id = '${id('dbt', 4)}';
      INSERT INTO debtor_phones (id, debtor_id, phone, phone_e164, position, "primary")
        SELECT 'phn_' || substr(id, 5), id, '+3460' || substr(id, 24), '+3460' || substr(id, 24), 0, true FROM debtors;
      INSERT INTO debts (id, portfolio_id, debtor_id, external_id, total_amount, paid_amount, currency)
        SELECT 'debt_' || substr(id, 5), portfolio_id, id, 'D-' || id, 100, 0, 'EUR' FROM debtors;
      -- Calls and payments: organization A has a handful (its small portfolio), B thousands.
      INSERT INTO calls (id, portfolio_id, debtor_id, direction, status)
        SELECT 'call_' || substr(id, 5), portfolio_id, id, 'outbound', 'completed' FROM debtors WHERE portfolio_id <> 'pf_a1';
      INSERT INTO payments (id, portfolio_id, debtor_id, amount, currency, payment_date, source)
        SELECT 'pay_' || substr(id, 5), portfolio_id, id, 10, 'EUR', '2026-01-01', 'panel' FROM debtors WHERE portfolio_id <> 'pf_a1';
      ANALYZE;`);
    for (let g = 1; g <= ROWS; g++) {
      if (g === 2 || g === 4) continue;
      if (g % 200 === 1) smallPortfolioDebtors.push(id('dbt', g));
      if (g % 200 === 1 || g % 2 === 0) aDebtors.push(id('dbt', g));
    }
    // Generic plans on every connection the repositories use (set at connection start-up, so a
    // replaced idle connection keeps it).
    database = new Database(`${db.url}?options=${encodeURIComponent('-c plan_cache_mode=force_generic_plan')}`, 1);
    const [{ plan_cache_mode: mode }] = await database.client.$queryRawUnsafe<{ plan_cache_mode: string }[]>('SHOW plan_cache_mode');
    expect(mode).toBe('force_generic_plan');
  });

  afterAll(async () => {
    await database?.close();
    await client?.end();
    await db?.drop();
  });

  /** Buffers read by the statement's generic plan (PREPARE + EXPLAIN EXECUTE, as Postgres caches it). */
  const genericPlanBuffers = (statement: { text: string; values: unknown[] }) => planBuffers(client, statement);

  /** Debtor rows come as bytes (Database.preparedBytes), the others as strings. */
  async function walk<T extends { id: string | Buffer }>(page: (after: string | null) => Promise<T[]>): Promise<string[]> {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const rows = await page(after);
      seen.push(...rows.slice(0, 50).map((r) => String(r.id)));
      if (rows.length <= 50) return seen;
      after = String(rows[49].id);
    }
  }

  it('a deep debtor page reads no more than the first page, whatever the filters', async () => {
    const deep = aDebtors[aDebtors.length - 60];
    for (const filter of [{}, { portfolioId: 'pf_a1' }, { status: ['active' as const] }]) {
      const first = await genericPlanBuffers(reachableDebtorsSql(A, filter, null, 51));
      const last = await genericPlanBuffers(reachableDebtorsSql(A, filter, deep, 51));
      expect({ filter, deepWithinFirst: last <= first * 1.5 }).toEqual({ filter, deepWithinFirst: true });
      // 51 debtors with their phones: a few hundred buffers, never the thousands of a scan.
      expect(last).toBeLessThan(500);
    }
  });

  it('a deep debt page reads no more than the first page', async () => {
    const deep = `debt_${aDebtors[aDebtors.length - 60].slice(4)}`;
    const first = await genericPlanBuffers(reachableDebtsSql(A, {}, null, 51));
    const last = await genericPlanBuffers(reachableDebtsSql(A, {}, deep, 51));
    expect(last).toBeLessThanOrEqual(first * 1.5);
    expect(last).toBeLessThan(500);
  });

  it('a small organization\'s calls and payments pages never walk a large organization\'s rows', async () => {
    const calls = new CallsRepository(database, ReadRouter.primaryOnly(database));
    const payments = new PaymentsRepository(database, ReadRouter.primaryOnly(database));
    for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
      for (const sql of [callsPageSql(A, {}, null, 51), paymentsPageSql(A, {}, null, 51)]) {
        // 31 rows of A among 3,000 of B: a scan of the primary key filtered by organization reads ~100 times more.
        expect(await planBuffers(client, sql, mode)).toBeLessThan(150);
      }
    }
    const smallPortfolioIds = (prefix: string) => smallPortfolioDebtors.map((d) => `${prefix}_${d.slice(4)}`);
    expect(await walk(async (after) => (await calls.listReachable(A, {}, after, 51)).rows)).toEqual(smallPortfolioIds('call'));
    expect(await walk(async (after) => (await payments.listReachable(A, {}, after, 51)).rows)).toEqual(smallPortfolioIds('pay'));
  });

  it('debtor page walks return every readable debtor of the organization exactly once, in id order', async () => {
    const repo = new DebtorsRepository(database, ReadRouter.primaryOnly(database));
    expect(await walk((after) => repo.listReachable(A, {}, after, 51))).toEqual(aDebtors);
    expect(await walk((after) => repo.listReachable({ ...A, portfolioIds: ['pf_a2'] }, {}, after, 51))).toEqual(smallPortfolioDebtors);
    const settled = aDebtors.filter((d) => Number(d.slice(4)) % 10 === 0);
    expect(await walk((after) => repo.listReachable(A, { status: ['settled'] }, after, 51))).toEqual(settled);
    expect(await walk((after) => repo.listReachable(A, { portfolioId: 'pf_b2' }, after, 51))).toEqual([]);
  });

  it('debt page walks return every readable debt exactly once; by-id reads respect reach', async () => {
    const repo = new DebtsRepository(ReadRouter.primaryOnly(database));
    expect(await walk(async (after) => (await repo.listReachable(A, {}, after, 51)).rows)).toEqual(aDebtors.map((d) => `debt_${d.slice(4)}`));
    expect((await repo.findReachable(A, id('debt', 6)))?.debtorId).toBe(id('dbt', 6));
    expect(await repo.findReachable(A, id('debt', 3))).toBeNull(); // organization B's
    expect(await repo.findReachable(A, id('debt', 2))).toBeNull(); // its debtor is deleted
  });

  it('by-id debtor reads: own organization only, never deleted or erased', async () => {
    const repo = new DebtorsRepository(database, ReadRouter.primaryOnly(database));
    expect(JSON.parse(String((await repo.findReachable(A, id('dbt', 6)))?.json ?? '{}')).contactInfoPhoneNumbers).toHaveLength(1);
    expect(await repo.findReachable(A, id('dbt', 3))).toBeNull();
    expect(await repo.findReachable(A, id('dbt', 2))).toBeNull();
    expect(await repo.findReachable(A, id('dbt', 4))).toBeNull();
    expect(await repo.findReachable({ ...A, portfolioIds: ['pf_a2'] }, id('dbt', 6))).toBeNull();
  });
});
