import { createTestDatabase } from '@dc/testing';
import { Client } from 'pg';
import { CREATED_BY_DOCUMENT_SQL } from '../src/merging/merge.repository';

/** A node of EXPLAIN (FORMAT JSON). */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** How the plan reads each table: node type, index and index condition of every scan of it. */
function scansOf(node: PlanNode, scans: Record<string, string[]> = {}): Record<string, string[]> {
  const table = node['Relation Name'];
  if (table) (scans[table] ??= []).push(`${node['Node Type']} ${node['Index Name'] ?? ''} ${node['Index Cond'] ?? ''}`.trim());
  for (const child of node.Plans ?? []) scansOf(child, scans);
  return scans;
}

/**
 * Mode add's lookup of the debtors an import created (CREATED_BY_DOCUMENT_SQL) reads each key's
 * staged row through the document index and its debtor through the primary key, whatever the
 * statistics say — in the state of a dry run (docs/adr/0049): 20,000 debtors created and staged in
 * one transaction not yet committed, over statistics never taken, taken while the tables were
 * empty, or taken with another portfolio's debtors only. Before, a join of the whole keys list read
 * every row the import had staged so far (`Bitmap Index Scan on import_rows_pkey`, import_id alone)
 * and hashed the debtors the statistics did not show, for each chunk: a dry add of 1,000,000 rows
 * took 1.92× the real run.
 */
describe('the import merge lookups keep their plan in a dry run', () => {
  const STAGED = 20_000;
  const KEYS = 500;
  const CHUNK = 5_000;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: Client;

  const createPortfolio = (pf: string) =>
    client.query(`INSERT INTO portfolios (id, organization_id, identity_name, identity_currency) VALUES ($1, 'org_plan', $1, '{EUR}')`, [pf]);
  /** Debtors `from`..`to` of the portfolio (document `D<n>`). */
  const createDebtors = (pf: string, from: number, to: number) =>
    client.query(
      `INSERT INTO debtors (id, portfolio_id, identity_document_type, identity_document_number)
       SELECT $1 || '_dbt_' || i, $1, 'dni', 'D' || i FROM generate_series($2::int, $3::int) AS i`,
      [pf, from, to],
    );
  /** Rows `from`..`to` of the import's file, each staged as the row that created its debtor. */
  const stage = (importId: string, pf: string, from: number, to: number) =>
    client.query(
      `INSERT INTO import_rows (import_id, row_number, identity_document_type, identity_document_number, new_debtor_id)
       SELECT $1, i + 1, 'dni', 'D' || i, $2 || '_dbt_' || i FROM generate_series($3::int, $4::int) AS i`,
      [importId, pf, from, to],
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new Client({ connectionString: database.url });
    await client.connect();
    await client.query(`INSERT INTO organizations (id, name) VALUES ('org_plan', 'Plan')`);
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  // In this order: the first runs before any statistics exist.
  it.each([
    ['never taken', async () => undefined],
    ['taken while the tables were empty', () => client.query('VACUUM ANALYZE debtors, import_rows')],
    [
      // Production's: a dry run refreshes them once its first chunk is staged (the reader commits it).
      "taken with another portfolio's debtors and the import's first chunk staged",
      async () => {
        await createPortfolio('pf_other');
        await createDebtors('pf_other', 1, STAGED);
        await stage('imp_plan', 'pf_plan', 1, CHUNK);
        await client.query('VACUUM ANALYZE debtors, import_rows');
      },
    ],
  ])('statistics %s: a key, its staged row by document, its debtor by id', async (_state, statistics: () => Promise<unknown>) => {
    await statistics();
    await client.query('BEGIN');
    try {
      await createPortfolio('pf_plan');
      await createDebtors('pf_plan', 1, STAGED);
      const { rows: [staged] } = await client.query(`SELECT count(*)::int AS n FROM import_rows WHERE import_id = 'imp_plan'`);
      await stage('imp_plan', 'pf_plan', staged.n + 1, STAGED);
      // A chunk's documents: half created by earlier chunks, half new.
      const numbers = Array.from({ length: KEYS }, (_, k) => `D${k % 2 ? k : STAGED + k + 1}`);
      const values = ['imp_plan', numbers.map(() => 'dni'), numbers];
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${CREATED_BY_DOCUMENT_SQL}`, values);
      const scans = scansOf(rows[0]['QUERY PLAN'][0].Plan);
      expect(scans).toEqual({
        import_rows: [
          'Index Scan import_rows_document_idx ' +
            "((import_id = 'imp_plan'::text) AND (identity_document_type = k.t) AND (identity_document_number = k.n))",
        ],
        debtors: [expect.stringMatching(/^Index Scan debtors_(pkey|id_portfolio_id_key) \(id = s\.new_debtor_id\)$/)],
      });
      const found = await client.query(CREATED_BY_DOCUMENT_SQL, values);
      expect(found.rows.map((r) => r.id).sort()).toEqual(numbers.filter((_, k) => k % 2).map((n) => `pf_plan_dbt_${n.slice(1)}`).sort());
    } finally {
      await client.query('ROLLBACK');
    }
  });
});
