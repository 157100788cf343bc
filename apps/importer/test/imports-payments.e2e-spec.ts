import type { ImportMode, ImportView } from '@dc/contracts';
import { csvLine, enqueueImport, identityMapping, OperatorClient, Stack, Tenant, uploadCsv, withDatabase } from '@dc/testing';
import { ImportClient, ISO, newPortfolio, startImportStack } from './import-kit';

/**
 * Payments inside a portfolio load file (spec: Events, payment.registered — "Payments inside a
 * portfolio load file do not emit it"; docs/imports.md "Payments in a load"): one payment
 * per row, registered against the row's debt and debtor with the rules of POST /v1/payments, listed
 * by GET /v1/payments with externalId null, no event; the file's payment id makes a reload safe.
 */
describe('importer: payments in a load', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let client: ImportClient;

  const HEADER = [
    'identity_first_name', 'identity_document_type', 'identity_document_number',
    'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency',
    'payment_external_id', 'payment_amount', 'payment_currency', 'payment_date', 'payment_method', 'payment_reference',
  ];
  const ROWS = [
    ['Ana', 'national_id', 'P1', 'pd1', '100', '40', 'EUR', 'pay-1', '40', '', '2026-01-05', 'card', 'voucher 1'],
    ['Ana', 'national_id', 'P1', 'pd2', '50', '0', 'USD', '', '', '', '', '', ''], // a debt, no payment
    ['Luis', 'national_id', 'P2', '', '', '', '', 'pay-2', '12.5', 'GBP', '2026-01-06T10:00:00Z', '', ''], // no debt; currency given
    ['Eva', 'national_id', 'P3', '', '', '', '', 'pay-3', '7', '', '2026-01-07', '', ''], // no debt, no currency: the portfolio's
    ['Rosa', 'national_id', 'P4', 'pd4', '10', '0', 'EUR', 'pay-4', '0', '', '2026-01-08', '', ''], // amount 0: row refused
    ['Otto', 'national_id', 'P5', 'pd5', '10', '0', 'EUR', 'pay-5', '5', '', '2026-01-09', 'bitcoin', ''], // method not in the list
  ];
  const csv = (rows: string[][]) => `${[HEADER, ...rows].map((r) => csvLine(r)).join('\n')}\n`;
  const load = (pf: string, rows: string[][], mode?: ImportMode) => client.load(pf, csv(rows), identityMapping(HEADER), mode);
  const counters = (v: ImportView) => ({
    status: v.status, created: v.created, updated: v.updated, errors: v.errors, paymentsRegistered: v.paymentsRegistered, paymentsSkipped: v.paymentsSkipped,
  });
  const payments = async (pf: string) => (await client.list<Record<string, unknown>>(`/payments?portfolioId=${pf}`)).sort((a, b) => String(a.paymentDate).localeCompare(String(b.paymentDate)));
  const paymentEvents = (pf: string) =>
    withDatabase(stack.databaseUrl, async (c) => (await c.query(`SELECT count(*)::int AS n FROM outbox_events WHERE portfolio_id = $1 AND type = 'payment.registered'`, [pf])).rows[0].n as number);

  beforeAll(async () => {
    ({ stack, operator, tenant, client } = await startImportStack());
  }, 60_000);
  afterAll(() => stack?.stop());

  it('registers one payment per row against its debt or debtor, with the rules of POST /v1/payments, and emits no event', async () => {
    const pf = await newPortfolio(operator, tenant.organizationId, ['CHF', 'EUR']);
    const view = await load(pf, ROWS, 'add');
    expect(counters(view)).toEqual({ status: 'completed', created: 4, updated: 0, errors: 2, paymentsRegistered: 3, paymentsSkipped: 0 });
    expect(view.errorDetails).toEqual([
      expect.stringMatching(/^row 6: payment_amount: must be above 0/),
      'row 7: payment_method: must be one of transfer, cash, collection_network, deposit, card, check, other',
    ]);
    const debtors = Object.fromEntries((await client.debtors(pf)).map((d) => [d.identityDocumentNumber, d.id]));
    const debts = Object.fromEntries((await client.debts(pf)).map((d) => [d.externalId, d.id]));
    expect(Object.keys(debtors).sort()).toEqual(['P1', 'P2', 'P3']);
    const shape = { id: expect.stringMatching(/^pay_[0-9A-Z]{26}$/), externalId: null, portfolioId: pf, promiseId: null, createdAt: ISO, updatedAt: ISO };
    expect(await payments(pf)).toEqual([
      { ...shape, debtorId: debtors.P1, debtId: debts.pd1, amount: 40, currency: 'EUR', paymentDate: '2026-01-05', paymentMethod: 'card', reference: 'voucher 1' },
      { ...shape, debtorId: debtors.P2, debtId: null, amount: 12.5, currency: 'GBP', paymentDate: '2026-01-06T10:00:00Z', paymentMethod: 'transfer', reference: null },
      // No debt and no currency: the debtor has no live debt, so the portfolio's main currency (as POST /v1/payments derives it).
      { ...shape, debtorId: debtors.P3, debtId: null, amount: 7, currency: 'CHF', paymentDate: '2026-01-07', paymentMethod: 'transfer', reference: null },
    ]);
    // The debt's amounts are the file's snapshot: a loaded payment does not add to paidAmount (docs/adr/0010).
    expect((await client.get(`/debts/${debts.pd1}`)).body.data).toMatchObject({ totalAmount: 100, paidAmount: 40 });
    expect(await paymentEvents(pf)).toBe(0);
  });

  it.each(['update', 'add', 'replace'] as const)('a reload (%s) registers nothing again: the file id is already registered, whatever debtor the row now matches', async (mode) => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const rows = ROWS.slice(0, 4);
    expect(counters(await load(pf, rows, 'add'))).toMatchObject({ status: 'completed', paymentsRegistered: 3, paymentsSkipped: 0 });
    const before = await payments(pf);
    const again = await load(pf, [...rows, ['Nora', 'national_id', 'P9', '', '', '', '', 'pay-9', '9', 'EUR', '2026-01-10', 'cash', '']], mode);
    expect(counters(again)).toMatchObject({ status: 'completed', errors: 0, paymentsRegistered: 1, paymentsSkipped: 3 });
    const after = await payments(pf);
    expect(after.slice(0, 3)).toEqual(before);
    expect(after.slice(3)).toEqual([expect.objectContaining({ externalId: null, amount: 9, currency: 'EUR', paymentMethod: 'cash' })]);
    expect(await paymentEvents(pf)).toBe(0);
  });

  it('a payment id twice in one file registers the first row\'s payment only', async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const view = await load(pf, [
      ['Ana', 'national_id', 'P1', 'pd1', '100', '0', 'EUR', 'dup', '10', '', '2026-02-01', '', ''],
      ['Luis', 'national_id', 'P2', 'pd2', '100', '0', 'EUR', 'dup', '20', '', '2026-02-02', '', ''],
    ]);
    expect(counters(view)).toEqual({ status: 'completed', created: 2, updated: 0, errors: 0, paymentsRegistered: 1, paymentsSkipped: 1 });
    expect((await payments(pf)).map((p) => [p.amount, p.paymentDate])).toEqual([[10, '2026-02-01']]);
  });

  it('a mapping with a payment field needs payment_external_id, payment_amount and payment_date (400 before anything is queued)', async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, csv(ROWS));
    const columnMapping = identityMapping(HEADER).filter((m) => m.targetField !== 'payment_external_id');
    const res = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: expect.any(String),
      requestId: expect.any(String),
      issues: [{ path: 'columnMapping', message: "a row's payment needs payment_external_id, payment_amount, payment_date: map a column to payment_external_id" }],
    });
  });
});
