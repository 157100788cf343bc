import { createTenant, fixtureId, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import request from 'supertest';

/**
 * The debtor batch when a portfolio holds duplicate live externalIds, which CSV loads in mode add
 * create (docs/adr/0041, docs/adr/0012): a debtor item matches the oldest live debtor of its
 * externalId (the lowest id; ids are time-ordered), a debt the matched debtor's live debt of its
 * externalId; a debt live only under other debtors still refuses the item (debt_external_id_in_use).
 */
describe('POST /public/v1/portfolios/{id}/debtors with duplicate externalIds in the portfolio (docs/adr/0041)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let pf: string;
  // Two live debtors 'C-1' with the same document, each with a live debt 'D-1'. The newer debtor's
  // debt has the lower id: a debt is matched through its debtor, not by its own age.
  let older: string;
  let newer: string;
  let olderDebt: string;
  let newerDebt: string;

  const post = (body: unknown) =>
    request(stack.publicUrl).post(`/public/v1/portfolios/${pf}/debtors`).set('Authorization', `Bearer ${tenant.key}`).send(body as object);
  const get = (path: string) => request(stack.publicUrl).get(`/public/v1${path}`).set('Authorization', `Bearer ${tenant.readKey}`);
  const q = (text: string, params: unknown[] = []) => withDatabase(stack.databaseUrl, async (c) => (await c.query(text, params)).rows);
  /** Two fresh ids in increasing order (ULIDs of one millisecond are not ordered by creation). */
  const twoIds = (prefix: string) => [fixtureId(prefix), fixtureId(prefix)].sort();

  beforeAll(async () => {
    stack = await Stack.start();
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
    pf = tenant.portfolioIds[0];
    [older, newer] = twoIds('dbt');
    [newerDebt, olderDebt] = twoIds('debt');
    // Fails on a schema that still has the unique live external-id indexes (before migration 20261128000000).
    await q(
      `INSERT INTO debtors (id, portfolio_id, external_id, identity_first_name, identity_document_type, identity_document_number)
       VALUES ($1, $3, 'C-1', 'Ana', 'national_id', 'X-1'), ($2, $3, 'C-1', 'Ana', 'national_id', 'X-1')`,
      [older, newer, pf],
    );
    await q(
      `INSERT INTO debts (id, portfolio_id, debtor_id, external_id, total_amount, paid_amount, currency, status)
       VALUES ($1, $3, $4, 'D-1', 100, 0, 'EUR', 'active'), ($2, $3, $5, 'D-1', 100, 0, 'EUR', 'active')`,
      [olderDebt, newerDebt, pf, older, newer],
    );
  });
  afterAll(() => stack?.stop());

  /** The newer pair as the API shows it: the batch must leave it exactly so. */
  async function newerPair() {
    const [debtor, debt] = await Promise.all([get(`/debtors/${newer}`), get(`/debts/${newerDebt}`)]);
    expect([debtor.status, debt.status]).toEqual([200, 200]);
    return { debtor: debtor.body, debt: debt.body };
  }

  it('an item of the duplicated externalId updates the oldest debtor and its debt; the newer pair is unchanged', async () => {
    const before = await newerPair();
    const res = await post({
      debtors: [{
        externalId: 'C-1', identityFirstName: 'Bea', identityDocumentType: 'national_id', identityDocumentNumber: 'X-1',
        debts: [{ externalId: 'D-1', totalAmount: 250, paidAmount: 50, currency: 'EUR' }],
      }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        results: [{ index: 0, externalId: 'C-1', status: 'updated', id: older, debts: [{ externalId: 'D-1', id: olderDebt, status: 'updated' }] }],
        summary: { created: 0, received: 1, rejected: 0, updated: 1 },
      },
    });
    expect(await newerPair()).toEqual(before);
    const [debtor, debt] = await Promise.all([get(`/debtors/${older}`), get(`/debts/${olderDebt}`)]);
    expect([debtor.status, debtor.body.data.identityFirstName]).toEqual([200, 'Bea']);
    expect([debt.status, debt.body.data.debtorId, debt.body.data.totalAmount, debt.body.data.paidAmount]).toEqual([200, older, 250, 50]);
    // Nothing created: still the two debtors and the two debts.
    expect(await q(`SELECT id FROM debtors WHERE portfolio_id = $1 AND external_id = 'C-1' ORDER BY id`, [pf])).toEqual([{ id: older }, { id: newer }]);
    expect(await q(`SELECT id, debtor_id FROM debts WHERE portfolio_id = $1 AND external_id = 'D-1' ORDER BY id`, [pf])).toEqual([
      { id: newerDebt, debtor_id: newer },
      { id: olderDebt, debtor_id: older },
    ]);
  });

  it('a new debtor declaring the duplicated debt is rejected debt_external_id_in_use; nothing is written', async () => {
    const before = await newerPair();
    const res = await post({
      debtors: [{
        externalId: 'C-2', identityFirstName: 'Eva', identityDocumentType: 'national_id', identityDocumentNumber: 'X-2',
        debts: [{ externalId: 'D-1', totalAmount: 300, currency: 'EUR' }],
      }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        results: [{
          index: 0, externalId: 'C-2', status: 'rejected', id: null, debts: [],
          reason: { code: 'debt_external_id_in_use', message: 'Debt externalId D-1 belongs to another debtor of this portfolio.', path: 'debtors[0].debts[0].externalId' },
        }],
        summary: { created: 0, received: 1, rejected: 1, updated: 0 },
      },
    });
    expect(await newerPair()).toEqual(before);
    expect(await q(`SELECT id FROM debtors WHERE portfolio_id = $1 AND external_id = 'C-2'`, [pf])).toEqual([]);
    expect(await q(`SELECT total_amount::text FROM debts WHERE portfolio_id = $1 AND external_id = 'D-1' ORDER BY id`, [pf])).toEqual([
      { total_amount: '100.0000' },
      { total_amount: '250.0000' },
    ]);
  });
});
