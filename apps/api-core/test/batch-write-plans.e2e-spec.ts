import { BatchDebtorDto, ErasureTombstones } from '@dc/contracts';
import { Database, Prisma, ReadRouter } from '@dc/database';
import { createTestDatabase, insertOrganization } from '@dc/testing';
import { Client } from 'pg';
import { batchKeys, prepareItems } from '../src/debtor-batch/batch-plan';
import { DebtorBatchRepository } from '../src/debtor-batch/debtor-batch.repository';
import { writeBatchIn } from '../src/debtor-batch/write-debtor-batch.usecase';

const COUNTERS = ['seq_scan', 'idx_scan', 'n_tup_ins', 'n_tup_upd'] as const;
type Counts = Record<(typeof COUNTERS)[number], number>;

const TABLES = ['debtors', 'debts', 'debtor_phones', 'debtor_erasures'];
const OTHER_PORTFOLIO_DEBTORS = 2_000;
const BATCH = 200;

const debtors = (prefix: string, count: number): BatchDebtorDto[] =>
  Array.from({ length: count }, (_, i) => ({
    externalId: `${prefix}-${i}`,
    identityFirstName: 'Ana',
    identityDocumentType: 'national_id',
    identityDocumentNumber: `DOC-${prefix}-${i}`,
    contactInfoPhoneNumbers: [{ phone: `+3461${String(i).padStart(7, '0')}` }, { phone: `+3491${String(i).padStart(7, '0')}` }],
    debts: [0, 1].map((d) => ({ externalId: `${prefix}-${i}-${d}`, totalAmount: 100 + d, currency: 'EUR' })),
  })) as BatchDebtorDto[];

/**
 * A debtor batch names every row it reads or writes by key (docs/adr/0040): its statements use
 * indexes whatever the tables hold, so its cost follows the batch and not the organisation's data.
 * Before, the two UPDATEs joined unnest() to a full scan of debtors and of debts: 6–15 ms a batch
 * on the debtor-batch bench's 16,000 debts, and growing with every portfolio. The batch runs here
 * as the use case runs it, in one transaction, and Postgres's own per-transaction counters
 * (pg_stat_xact_user_tables) tell how each table was read.
 */
describe('debtor batch statements are index-driven', () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let admin: Client;
  let db: Database;
  let repository: DebtorBatchRepository;
  const tombstones = new ErasureTombstones(Buffer.alloc(32, 7));

  /** One batch through the use case's own transaction body (writeBatchIn); and what it did to each table. */
  const runBatch = (portfolioId: string, dtos: BatchDebtorDto[]) =>
    repository.transaction(async (tx) => {
      // The xact counters also hold earlier transactions of the connection until they are flushed
      // (never inside a transaction): the difference across this one is exact.
      const counters = async () =>
        new Map(
          (await tx.query<{ relname: string } & Counts>(Prisma.sql`
            SELECT relname, seq_scan::int, idx_scan::int, n_tup_ins::int, n_tup_upd::int
            FROM pg_stat_xact_user_tables WHERE relname = ANY(${TABLES}::text[])`)).map((r) => [r.relname, r]),
        );
      const before = await counters();
      const items = prepareItems(dtos);
      const plan = await writeBatchIn(repository, tx, portfolioId, items, batchKeys(items, tombstones));
      const after = await counters();
      const done = (table: string): Counts =>
        Object.fromEntries(COUNTERS.map((c) => [c, (after.get(table)?.[c] ?? 0) - (before.get(table)?.[c] ?? 0)])) as Counts;
      return { summary: plan.view.summary, done };
    });

  beforeAll(async () => {
    testDb = await createTestDatabase();
    admin = new Client({ connectionString: testDb.url });
    await admin.connect();
    await insertOrganization(admin, 'org_plans', ['pf_plans_a', 'pf_plans_b']);
    db = new Database(testDb.appUrl, 2);
    repository = new DebtorBatchRepository(db, tombstones, ReadRouter.primaryOnly(db));
    // Another portfolio's rows: ten times the batch, so a full scan is what a join would pick.
    for (let n = 0; n < OTHER_PORTFOLIO_DEBTORS; n += 500) await runBatch('pf_plans_b', debtors(`b${n}`, 500));
  });

  afterAll(async () => {
    await db.close();
    await admin.end();
    await testDb.drop();
  });

  it('creates a batch without scanning a table whole', async () => {
    const { summary, done } = await runBatch('pf_plans_a', debtors('a', BATCH));
    expect(summary).toEqual({ received: BATCH, created: BATCH, updated: 0, rejected: 0 });
    expect(done('debtors')).toMatchObject({ seq_scan: 0, n_tup_ins: BATCH });
    expect(done('debts')).toMatchObject({ seq_scan: 0, n_tup_ins: 2 * BATCH });
    expect(done('debtor_phones')).toMatchObject({ seq_scan: 0, n_tup_ins: 2 * BATCH });
  });

  it('updates every row of a resent batch through the primary keys, without scanning a table whole', async () => {
    const { summary, done } = await runBatch('pf_plans_a', debtors('a', BATCH));
    expect(summary).toEqual({ received: BATCH, created: 0, updated: BATCH, rejected: 0 });
    expect(done('debtors')).toMatchObject({ seq_scan: 0, n_tup_ins: 0, n_tup_upd: BATCH });
    expect(done('debts')).toMatchObject({ seq_scan: 0, n_tup_ins: 0, n_tup_upd: 2 * BATCH });
    // ON CONFLICT DO UPDATE counts an update per known number, and no insert.
    expect(done('debtor_phones')).toMatchObject({ seq_scan: 0, n_tup_ins: 0, n_tup_upd: 2 * BATCH });
    for (const table of ['debtors', 'debts']) expect(done(table).idx_scan).toBeGreaterThan(0);
  });

  it('reads the erasure tombstones by key too', async () => {
    await admin.query(`INSERT INTO debtor_erasures (portfolio_id, external_id_hash, scheme) VALUES ('pf_plans_a', $1, 'hmac-sha256')`, [tombstones.tombstone('gone-0')]);
    const { summary, done } = await runBatch('pf_plans_a', debtors('gone', 1));
    expect(summary).toEqual({ received: 1, created: 0, updated: 0, rejected: 1 });
    expect(done('debtor_erasures')).toMatchObject({ seq_scan: 0, idx_scan: 1 });
  });
});
