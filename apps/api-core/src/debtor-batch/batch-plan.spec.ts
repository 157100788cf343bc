import { BatchDebtorDto, DebtorBatchReason, ErasureTombstones, normalisePhone, parseAmount } from '@dc/contracts';
import { batchKeys, BatchState, batchState, ExistingDebt, ExistingDebtor, internalFailure, planBatch, prepareItems } from './batch-plan';

const debtor = (externalId: string, extra: Partial<BatchDebtorDto> = {}): BatchDebtorDto => ({
  externalId, identityFirstName: 'Ana', identityDocumentType: 'id', identityDocumentNumber: 'N', ...extra,
});
const debt = (externalId: string, extra: Record<string, unknown> = {}) => ({ externalId, totalAmount: 100, currency: 'EUR', ...extra });
const empty = (): BatchState => ({ debtors: new Map(), erasedExternalIds: new Set(), debts: new Map() });
let n = 0;
const ids = (prefix: string) => `${prefix}_${(n += 1)}`;
const plan = (debtors: BatchDebtorDto[], state = empty()) => planBatch(prepareItems(debtors), state, ids);
const reasons = (debtors: BatchDebtorDto[], state = empty()) => plan(debtors, state).view.results.map((r) => (r.status === 'rejected' ? r.reason.code : r.status));

describe('normalisePhone', () => {
  it('gives the same number regardless of format', () => {
    expect(normalisePhone('+34 600 11 22 33')).toBe('+34600112233');
    expect(normalisePhone('+34600112233')).toBe('+34600112233');
    expect(normalisePhone('+34 (600) 11-22.33')).toBe('+34600112233');
    expect(normalisePhone('+44 (0)20 7946 0958')).toBe(normalisePhone('+442079460958'));
    expect(normalisePhone('+39 06 1234 5678')).toBe('+390612345678'); // Italy keeps its leading 0
  });

  it('requires the E.164 shape only: +, first digit not 0, 9 to 15 digits', () => {
    expect(normalisePhone('600112233')).toBeNull();
    expect(normalisePhone('+0600112233')).toBeNull();
    expect(normalisePhone('+3460011')).toBeNull(); // 7 digits
    expect(normalisePhone('+1234567890123456')).toBeNull(); // 16 digits
    expect(normalisePhone('+999123456789')).toBe('+999123456789'); // shape only, no numbering-plan validity
    expect(normalisePhone('+34 600 abc')).toBeNull();
  });
});

describe('parseAmount', () => {
  it('accepts up to 4 decimals and 15 integer digits', () => {
    expect(parseAmount(10.1234)).toEqual({ text: '10.1234', scaled: 101234n });
    expect(parseAmount(100)).toEqual({ text: '100', scaled: 1000000n });
    expect(parseAmount(10.12345)).toBeNull();
    expect(parseAmount(1e16)).toBeNull();
    expect(parseAmount(1e-7)).toBeNull();
    expect(parseAmount(-1)).toBeNull();
  });
});

describe('prepareItems and planBatch', () => {
  it('creates new debtors and debts with derived paid status', () => {
    const p = plan([debtor('a', { debts: [debt('d1', { paidAmount: 100 }), debt('d2', { paidAmount: 0.5 })] as never })]);
    expect(p.view.summary).toEqual({ created: 1, received: 1, rejected: 0, updated: 0 });
    expect(p.writes.newDebtors).toHaveLength(1);
    expect(p.writes.newDebts.map((d) => [d.debt.externalId, d.debt.paid, d.debt.paidAmount])).toEqual([['d1', true, '100'], ['d2', false, '0.5']]);
  });

  it('omitted paidAmount is 0', () => {
    expect(plan([debtor('a', { debts: [debt('d')] as never })]).writes.newDebts[0].debt.paidAmount).toBe('0');
  });

  it('duplicate_in_batch: the first wins', () => {
    expect(reasons([debtor('a'), debtor('b'), debtor('a')])).toEqual(['created', 'created', DebtorBatchReason.DuplicateInBatch]);
  });

  it('invalid_phone, and repeated numbers across formats', () => {
    expect(reasons([debtor('a', { contactInfoPhoneNumbers: [{ phone: '12345' }] })])).toEqual([DebtorBatchReason.InvalidPhone]);
    expect(reasons([debtor('a', { contactInfoPhoneNumbers: [{ phone: '+34 600 11 22 33' }, { phone: '+34600112233' }] })])).toEqual([DebtorBatchReason.InvalidPhone]);
  });

  it('phones: empty list = untouched; owner null unless sent', () => {
    const p = plan([debtor('a', { contactInfoPhoneNumbers: [] }), debtor('b', { contactInfoPhoneNumbers: [{ phone: '+34600112233', owner: 'holder' }, { phone: '+34600112234' }] })]);
    expect(p.writes.phoneSets).toHaveLength(1);
    expect(p.writes.phoneSets[0].phones.map((x) => x.owner)).toEqual(['holder', null]);
  });

  it('emails: empty list deletes all; absent untouched', () => {
    const p = plan([debtor('a', { contactInfoEmails: [] }), debtor('b')]);
    expect(p.writes.emailSets).toEqual([{ debtorId: p.view.results[0].id, emails: [] }]);
  });

  it('invalid_amount, debt_currency_invalid, debt_duplicate_in_item', () => {
    expect(reasons([debtor('a', { debts: [debt('d', { paidAmount: 101 })] as never })])).toEqual([DebtorBatchReason.InvalidAmount]);
    expect(reasons([debtor('a', { debts: [debt('d', { totalAmount: 1.00001 })] as never })])).toEqual([DebtorBatchReason.InvalidAmount]);
    expect(reasons([debtor('a', { debts: [debt('d', { currency: 'ABC' })] as never })])).toEqual([DebtorBatchReason.DebtCurrencyInvalid]);
    expect(reasons([debtor('a', { debts: [debt('d'), debt('d')] as never })])).toEqual([DebtorBatchReason.DebtDuplicateInItem]);
  });

  it('debt_duplicate_in_batch only against accepted items', () => {
    expect(reasons([debtor('a', { debts: [debt('d')] as never }), debtor('b', { debts: [debt('d')] as never })])).toEqual(['created', DebtorBatchReason.DebtDuplicateInBatch]);
    expect(reasons([debtor('a', { debts: [debt('d'), debt('x', { currency: 'ABC' })] as never }), debtor('b', { debts: [debt('d')] as never })])).toEqual([
      DebtorBatchReason.DebtCurrencyInvalid, 'created',
    ]);
  });

  it('existing debts: updated under the same debtor, in use under another, currency never changes', () => {
    const state = empty();
    state.debtors.set('a', { id: 'dbt_a', externalId: 'a', complianceOptOut: false });
    state.debts.set('d', [{ id: 'debt_d', externalId: 'd', debtorId: 'dbt_a', currency: 'EUR' }]);
    const p = plan([debtor('a', { debts: [debt('d')] as never })], state);
    expect(p.view.results[0]).toEqual({ index: 0, externalId: 'a', status: 'updated', id: 'dbt_a', debts: [{ externalId: 'd', id: 'debt_d', status: 'updated' }] });
    expect(p.writes.updatedDebts).toHaveLength(1);
    expect(reasons([debtor('b', { debts: [debt('new'), debt('d')] as never })], state)).toEqual([DebtorBatchReason.DebtExternalIdInUse]);
    expect(reasons([debtor('a', { debts: [debt('d', { currency: 'USD' })] as never })], state)).toEqual([DebtorBatchReason.DebtCurrencyMismatch]);
    const rejected = plan([debtor('b', { debts: [debt('new'), debt('d')] as never })], state);
    expect(rejected.writes.newDebtors).toEqual([]);
    expect(rejected.writes.newDebts).toEqual([]);
  });

  it('erased_subject only when no live debtor exists', () => {
    const state = empty();
    state.erasedExternalIds.add('gone');
    state.erasedExternalIds.add('live');
    state.debtors.set('live', { id: 'dbt_live', externalId: 'live', complianceOptOut: false });
    expect(reasons([debtor('gone'), debtor('live')], state)).toEqual([DebtorBatchReason.ErasedSubject, 'updated']);
  });

  it('opt-out recorded only when it becomes true', () => {
    const state = empty();
    state.debtors.set('a', { id: 'dbt_a', externalId: 'a', complianceOptOut: true });
    state.debtors.set('b', { id: 'dbt_b', externalId: 'b', complianceOptOut: false });
    const p = plan([debtor('a', { complianceOptOut: true }), debtor('b', { complianceOptOut: true }), debtor('c', { complianceOptOut: true }), debtor('d', { complianceOptOut: false })], state);
    expect(p.writes.optOuts).toEqual(['dbt_b', p.view.results[2].id]);
  });

  it('batchKeys: every debtor externalId once; debts only of the items that passed stage 1', () => {
    const items = prepareItems([
      debtor('a', { debts: [debt('d1'), debt('d2')] as never }),
      debtor('b', { debts: [debt('d1')] as never }),
      debtor('a'),
      debtor('c', { contactInfoPhoneNumbers: [{ phone: '600' }], debts: [debt('d3')] as never }),
    ]);
    const tombstones = new ErasureTombstones(Buffer.alloc(32, 9));
    expect(batchKeys(items, tombstones)).toEqual({
      debtorExternalIds: ['a', 'b', 'c'],
      debtExternalIds: ['d1', 'd2'],
      erasureHashes: tombstones.candidatesOf(['a', 'b', 'c']),
    });
  });

  it('internalFailure keeps stage-1 reasons and reports the rest as internal', () => {
    const view = internalFailure(prepareItems([debtor('a'), debtor('a')]));
    expect(view.results.map((r) => (r.status === 'rejected' ? r.reason.code : r.status))).toEqual([DebtorBatchReason.Internal, DebtorBatchReason.DuplicateInBatch]);
    expect(view.summary).toEqual({ created: 0, received: 2, rejected: 2, updated: 0 });
  });
});

describe('duplicate externalIds in the portfolio (docs/adr/0041: mode add loads create them)', () => {
  // Rows as readState reads them: live, in id order (ids are time-ordered, so the lowest is the oldest).
  const older: ExistingDebtor = { id: 'dbt_01A', externalId: 'a', complianceOptOut: false };
  const newer: ExistingDebtor = { id: 'dbt_01B', externalId: 'a', complianceOptOut: true };
  const debtRow = (id: string, debtorId: string, extra: Partial<ExistingDebt> = {}): ExistingDebt => ({ id, externalId: 'd', debtorId, currency: 'EUR', ...extra });
  const state = (debts: ExistingDebt[], debtors = [older, newer]) => batchState(debtors, new Set(), debts);

  it('several live debtors with one externalId: the oldest is matched and updated, the others untouched', () => {
    const p = plan([debtor('a', { identityFirstName: 'Bea', complianceOptOut: true })], state([]));
    expect(p.view.results).toEqual([{ index: 0, externalId: 'a', status: 'updated', id: older.id, debts: [] }]);
    expect(p.writes.updatedDebtors.map((w) => w.id)).toEqual([older.id]);
    expect(p.writes.newDebtors).toEqual([]);
    // The opt-out follows the matched debtor's stored value, not the newer one's.
    expect(p.writes.optOuts).toEqual([older.id]);
  });

  it('a debt duplicated under two debtors: the matched debtor\'s one is updated', () => {
    for (const debts of [[debtRow('debt_01C', older.id), debtRow('debt_01D', newer.id)], [debtRow('debt_01C', newer.id), debtRow('debt_01D', older.id)]]) {
      const mine = debts.find((d) => d.debtorId === older.id)!;
      const p = plan([debtor('a', { debts: [debt('d', { totalAmount: 7 })] as never })], state(debts));
      expect(p.view.results).toEqual([{ index: 0, externalId: 'a', status: 'updated', id: older.id, debts: [{ externalId: 'd', id: mine.id, status: 'updated' }] }]);
      expect(p.writes.updatedDebts.map((w) => [w.id, w.debtorId, w.debt.totalAmount])).toEqual([[mine.id, older.id, '7']]);
      expect(p.writes.newDebts).toEqual([]);
    }
  });

  it('the debt only under other debtors: debt_external_id_in_use, nothing of the item written', () => {
    const debts = [debtRow('debt_01C', newer.id), debtRow('debt_01D', 'dbt_other')];
    const p = plan([debtor('a', { debts: [debt('new'), debt('d')] as never })], state(debts));
    expect(p.view.results).toEqual([{
      index: 0, externalId: 'a', status: 'rejected', id: older.id, debts: [],
      reason: { code: DebtorBatchReason.DebtExternalIdInUse, message: 'Debt externalId d belongs to another debtor of this portfolio.', path: 'debtors[0].debts[1].externalId' },
    }]);
    expect(p.writes).toEqual({ newDebtors: [], updatedDebtors: [], phoneSets: [], emailSets: [], newDebts: [], updatedDebts: [], optOuts: [] });
    // A new debtor never takes a debt in use either.
    expect(reasons([debtor('b', { debts: [debt('d')] as never })], state(debts))).toEqual([DebtorBatchReason.DebtExternalIdInUse]);
  });

  it('the matched debtor with two live debts of one externalId: the lowest id is updated, currency checked against it', () => {
    const debts = [debtRow('debt_01C', older.id), debtRow('debt_01D', older.id, { currency: 'USD' }), debtRow('debt_01E', newer.id, { currency: 'USD' })];
    const p = plan([debtor('a', { debts: [debt('d')] as never })], state(debts));
    expect(p.view.results[0]).toEqual({ index: 0, externalId: 'a', status: 'updated', id: older.id, debts: [{ externalId: 'd', id: 'debt_01C', status: 'updated' }] });
    expect(p.writes.updatedDebts.map((w) => w.id)).toEqual(['debt_01C']);
    expect(reasons([debtor('a', { debts: [debt('d', { currency: 'USD' })] as never })], state(debts))).toEqual([DebtorBatchReason.DebtCurrencyMismatch]);
  });

  it('batchState: the first debtor of each externalId, every debt in the order read', () => {
    const debts = [debtRow('debt_01C', older.id), debtRow('debt_01D', newer.id), debtRow('debt_01E', older.id, { externalId: 'e' })];
    const s = state(debts, [older, newer, { id: 'dbt_01F', externalId: 'b', complianceOptOut: false }]);
    expect([...s.debtors.entries()]).toEqual([['a', older], ['b', { id: 'dbt_01F', externalId: 'b', complianceOptOut: false }]]);
    expect([...s.debts.entries()]).toEqual([['d', [debts[0], debts[1]]], ['e', [debts[2]]]]);
  });
});
