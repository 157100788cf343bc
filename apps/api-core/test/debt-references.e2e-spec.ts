import { createTestDatabase, insertOrganization } from '@dc/testing';
import { Client } from 'pg';

/**
 * A debt references its debtor and the debtor's portfolio with one foreign key,
 * debts_debtor_portfolio_fkey (migration 20261127120000): a debt cannot name a portfolio other than
 * its debtor's, and Postgres runs one check per inserted debt rather than two.
 */
describe('debts reference (debtor, portfolio) with one foreign key', () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Client;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = new Client({ connectionString: testDb.appUrl });
    await db.connect();
    await insertOrganization(db, 'org_ref', ['pf_ref_a', 'pf_ref_b']);
    await db.query(`
      INSERT INTO debtors (id, portfolio_id, external_id, identity_first_name, identity_document_type, identity_document_number)
      VALUES ('dbt_ref_a', 'pf_ref_a', 'ext-a', 'Ana', 'dni', '1')`);
  });

  afterAll(async () => {
    await db.end();
    await testDb.drop();
  });

  const insertDebt = (id: string, portfolioId: string, debtorId: string) =>
    db.query(
      `INSERT INTO debts (id, portfolio_id, debtor_id, external_id, total_amount, currency) VALUES ($1, $2, $3, $1, 10, 'EUR')`,
      [id, portfolioId, debtorId],
    );

  it("accepts a debt in its debtor's portfolio", async () => {
    await insertDebt('debt_ref_ok', 'pf_ref_a', 'dbt_ref_a');
    const { rows } = await db.query(`SELECT portfolio_id, debtor_id FROM debts WHERE id = 'debt_ref_ok'`);
    expect(rows).toEqual([{ portfolio_id: 'pf_ref_a', debtor_id: 'dbt_ref_a' }]);
  });

  it("refuses a debt that names another portfolio than its debtor's, or a debtor that does not exist", async () => {
    await expect(insertDebt('debt_ref_other', 'pf_ref_b', 'dbt_ref_a')).rejects.toMatchObject({ code: '23503', constraint: 'debts_debtor_portfolio_fkey' });
    await expect(insertDebt('debt_ref_none', 'pf_ref_a', 'dbt_missing')).rejects.toMatchObject({ code: '23503', constraint: 'debts_debtor_portfolio_fkey' });
    await expect(db.query(`UPDATE debts SET portfolio_id = 'pf_ref_b' WHERE id = 'debt_ref_ok'`)).rejects.toMatchObject({
      code: '23503',
      constraint: 'debts_debtor_portfolio_fkey',
    });
  });

  it('is the only foreign key of debts to debtors or portfolios, and it is validated', async () => {
    const { rows } = await db.query(`
      SELECT conname, confrelid::regclass::text AS target, convalidated FROM pg_constraint
      WHERE conrelid = 'debts'::regclass AND contype = 'f' AND confrelid IN ('debtors'::regclass, 'portfolios'::regclass)`);
    expect(rows).toEqual([{ conname: 'debts_debtor_portfolio_fkey', target: 'debtors', convalidated: true }]);
  });
});
