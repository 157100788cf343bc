import { Bit } from './fold-bits';
import { documentKey, MergeMessages, MergeState, planChunk, PlanOptions, StagedRow } from './merge-plan';

const COLUMNS = { debtorExternalId: 'Cliente', debtExternalId: 'Referencia', debtCurrency: 'Moneda' };
const UPDATE: PlanOptions = { mode: 'update', columns: COLUMNS };
const ADD: PlanOptions = { mode: 'add', columns: COLUMNS };

let n = 1;
/** A valid staged row of document `doc` with debt `debt` (null: a debtor-only row). */
function staged(doc: string, debt: string | null, extra: Partial<StagedRow> = {}): StagedRow {
  n += 1;
  return {
    rowNumber: n,
    errorDetails: null,
    documentType: 'national_id',
    documentNumber: doc,
    debtorExternalId: null,
    newDebtorId: `dbt_${n}`,
    present: debt ? Bit.snapshot : 0,
    optOut: null,
    debtExternalId: debt,
    debtCurrency: debt ? 'EUR' : null,
    newDebtId: debt ? `debt_${n}` : null,
    paymentExternalId: null,
    ...extra,
  };
}

function state(partial: Partial<MergeState> = {}): MergeState {
  return { debtorsByDocument: new Map(), externalIdOwners: new Map(), erasedExternalIds: new Set(), debts: new Map(), ...partial };
}

beforeEach(() => {
  n = 1;
});

describe('planChunk', () => {
  it('rows that share a document are one debtor: the first creates it, the others add their debts to it', () => {
    const rows = [staged('A', 'd1'), staged('B', 'd2'), staged('A', 'd3')];
    const plan = planChunk(rows, state(), UPDATE);
    expect(plan.rows.map((r) => [r.rowNumber, r.debtorId, r.debtorNew, r.debtId, r.debtNew])).toEqual([
      [2, 'dbt_2', true, 'debt_2', true],
      [3, 'dbt_3', true, 'debt_3', true],
      [4, 'dbt_2', true, 'debt_4', true],
    ]);
    expect({ created: plan.created, updated: plan.updated, errors: plan.errors }).toEqual({ created: 3, updated: 0, errors: 0 });
    expect(plan.counts).toEqual({ newDebtors: 2, updatedDebtors: 0, phoneSets: 0, phoneReplacements: 0, emailSets: 0, emailReplacements: 0, newDebts: 3, updatedDebts: 0, payments: 0 });
  });

  it('a later row of the same debt updates it (one debt, folded); a row without a debt updates its debtor', () => {
    const plan = planChunk([staged('A', 'd1'), staged('A', 'd1'), staged('A', null)], state(), UPDATE);
    expect(plan.rows.map((r) => [r.debtorId, r.debtId, r.debtNew])).toEqual([
      ['dbt_2', 'debt_2', true],
      ['dbt_2', 'debt_2', true],
      ['dbt_2', null, false],
    ]);
    expect({ created: plan.created, updated: plan.updated }).toEqual({ created: 1, updated: 2 });
    expect(plan.counts).toMatchObject({ newDebtors: 1, newDebts: 1, updatedDebts: 0 });
  });

  it('a debtor-only row that creates its debtor counts as created', () => {
    const plan = planChunk([staged('A', null), staged('A', null)], state(), UPDATE);
    expect({ created: plan.created, updated: plan.updated }).toEqual({ created: 1, updated: 1 });
  });

  describe('folding several rows into one write', () => {
    it('identity from the last row; each optional field from the last row that fills it; phones and emails likewise', () => {
      const rows = [
        staged('A', 'd1', { present: Bit.lastName | Bit.city | Bit.phones | Bit.snapshot | Bit.dueDate }),
        staged('A', 'd1', { present: Bit.city | Bit.emails | Bit.snapshot | Bit.description }),
        staged('A', 'd2', { present: Bit.optOut | Bit.snapshot }),
      ];
      const take = planChunk(rows, state(), UPDATE).rows.map((r) => r.take);
      expect(take).toEqual([
        Bit.lastName | Bit.phones | Bit.dueDate,
        Bit.city | Bit.emails | Bit.snapshot | Bit.description,
        Bit.identity | Bit.optOut | Bit.snapshot,
      ]);
    });

    it('only the row that creates the debtor gives it its external id', () => {
      const rows = [staged('A', null, { debtorExternalId: 'c1', present: Bit.externalId }), staged('A', null, { debtorExternalId: 'c2', present: Bit.externalId })];
      expect(planChunk(rows, state(), UPDATE).rows.map((r) => r.take)).toEqual([Bit.externalId, Bit.identity]);
      const existing = state({ debtorsByDocument: new Map([[documentKey('national_id', 'A'), { id: 'dbt_old', optOut: false }]]) });
      expect(planChunk([staged('A', null, { debtorExternalId: 'c3' })], existing, UPDATE).rows.map((r) => r.take)).toEqual([Bit.identity]);
    });

    it('counts phone and email writes, and the replacements among them (existing debtors)', () => {
      const existing = state({ debtorsByDocument: new Map([[documentKey('national_id', 'A'), { id: 'dbt_old', optOut: false }]]) });
      const plan = planChunk(
        [staged('A', null, { present: Bit.phones }), staged('A', null, { present: Bit.phones | Bit.emails }), staged('B', null, { present: Bit.phones })],
        existing,
        UPDATE,
      );
      expect(plan.counts).toMatchObject({ newDebtors: 1, updatedDebtors: 1, phoneSets: 2, phoneReplacements: 1, emailSets: 1, emailReplacements: 1 });
    });
  });

  describe('against the stored state', () => {
    const known = state({
      debtorsByDocument: new Map([[documentKey('national_id', 'A'), { id: 'dbt_a', optOut: false }]]),
      externalIdOwners: new Map([['c-a', 'dbt_a'], ['c-z', 'dbt_z']]),
      erasedExternalIds: new Set(['gone']),
      debts: new Map([
        ['d-a', [{ id: 'debt_a', debtorId: 'dbt_a', currency: 'EUR' }]],
        ['d-z', [{ id: 'debt_z', debtorId: 'dbt_z', currency: 'EUR' }]],
        // Mode add left two live debts d-dup (docs/adr/0041): one of dbt_a, one of dbt_z.
        ['d-dup', [{ id: 'debt_dup1', debtorId: 'dbt_z', currency: 'EUR' }, { id: 'debt_dup2', debtorId: 'dbt_a', currency: 'EUR' }]],
      ]),
    });

    it('the matched debtor is updated; its debt is updated; a new debt is created under it', () => {
      const plan = planChunk([staged('A', 'd-a'), staged('A', 'd-new')], known, UPDATE);
      expect(plan.rows.map((r) => [r.debtorId, r.debtorNew, r.debtId, r.debtNew])).toEqual([
        ['dbt_a', false, 'debt_a', false],
        ['dbt_a', false, 'debt_3', true],
      ]);
      expect({ created: plan.created, updated: plan.updated, errors: plan.errors }).toEqual({ created: 1, updated: 1, errors: 0 });
      expect(plan.counts).toMatchObject({ newDebtors: 0, updatedDebtors: 1, newDebts: 1, updatedDebts: 1 });
    });

    it('a debt live under another debtor is refused, also for a row creating its debtor; nothing of the row is written', () => {
      const plan = planChunk([staged('A', 'd-z'), staged('N', 'd-a')], known, UPDATE);
      expect(plan.rows).toEqual([]);
      expect(plan.errorDetails).toEqual([
        `row 2: Referencia: ${MergeMessages.debtInUse('d-z')}`,
        'row 3: Referencia: debt d-a belongs to another debtor of this portfolio (debt_external_id_in_use)',
      ]);
      // The same refusals, structured for the rejected-rows file.
      expect(plan.refusals).toEqual([
        { rowNumber: 2, column: 'Referencia', message: MergeMessages.debtInUse('d-z') },
        { rowNumber: 3, column: 'Referencia', message: MergeMessages.debtInUse('d-a') },
      ]);
      expect({ created: plan.created, updated: plan.updated, errors: plan.errors }).toEqual({ created: 0, updated: 0, errors: 2 });
    });

    it('a debt in another currency is refused (debt_currency_mismatch)', () => {
      const plan = planChunk([staged('A', 'd-a', { debtCurrency: 'USD' })], known, UPDATE);
      expect(plan.errorDetails).toEqual(['row 2: Moneda: debt d-a is in EUR; the currency of a debt never changes (debt_currency_mismatch)']);
    });

    it('a debt created by an earlier row keeps that row\'s currency', () => {
      const plan = planChunk([staged('B', 'd1'), staged('B', 'd1', { debtCurrency: 'USD' })], known, UPDATE);
      expect(plan.errorDetails).toEqual([`row 3: Moneda: ${MergeMessages.currencyMismatch('d1', 'EUR')}`]);
    });

    it('a new debtor whose external id a live debtor holds is refused in update, created in add', () => {
      expect(planChunk([staged('N', null, { debtorExternalId: 'c-z' })], known, UPDATE).errorDetails).toEqual([
        'row 2: Cliente: c-z is already used by another debtor of this portfolio (with another document)',
      ]);
      n = 1;
      const add = planChunk([staged('N', null, { debtorExternalId: 'c-z' }), staged('M', null, { debtorExternalId: 'c-z' })], known, ADD);
      expect(add.errors).toBe(0);
      expect(add.rows.map((r) => [r.debtorId, r.debtorNew, r.take & Bit.externalId])).toEqual([
        ['dbt_2', true, Bit.externalId],
        ['dbt_3', true, Bit.externalId],
      ]);
    });

    it('with duplicates, update matches the debt of the row\'s own debtor, whichever id is lower', () => {
      const plan = planChunk([staged('A', 'd-dup')], known, UPDATE);
      expect(plan.errors).toBe(0);
      expect(plan.rows.map((r) => [r.debtorId, r.debtId, r.debtNew])).toEqual([['dbt_a', 'debt_dup2', false]]);
    });

    it('with duplicates, a debtor holding none of them is refused in update (debt_external_id_in_use)', () => {
      expect(planChunk([staged('N', 'd-dup')], known, UPDATE).errorDetails).toEqual([`row 2: Referencia: ${MergeMessages.debtInUse('d-dup')}`]);
    });

    it('of one debtor\'s debts with one external id, the lowest id is updated', () => {
      const twice = state({ ...known, debts: new Map([['d-2', [{ id: 'debt_1', debtorId: 'dbt_a', currency: 'EUR' }, { id: 'debt_9', debtorId: 'dbt_a', currency: 'EUR' }]]]) });
      expect(planChunk([staged('A', 'd-2')], twice, UPDATE).rows.map((r) => r.debtId)).toEqual(['debt_1']);
    });

    it('add creates a debt whose external id another debtor holds, and two debtors of the file may share one', () => {
      const plan = planChunk([staged('N1', 'd-z'), staged('N2', 'd-z'), staged('N1', 'd-z')], known, ADD);
      expect(plan.errors).toBe(0);
      expect(plan.rows.map((r) => [r.debtorId, r.debtId, r.debtNew])).toEqual([
        ['dbt_2', 'debt_2', true],
        ['dbt_3', 'debt_3', true],
        // The same document and debt again: the row is its debt's latest snapshot.
        ['dbt_2', 'debt_2', true],
      ]);
      expect({ created: plan.created, updated: plan.updated }).toEqual({ created: 2, updated: 1 });
      expect(plan.counts).toMatchObject({ newDebtors: 2, newDebts: 2, updatedDebts: 0 });
    });

    it('accepted rows with a payment are counted; refused ones are not', () => {
      const plan = planChunk(
        [staged('A', 'd-a', { paymentExternalId: 'p1' }), staged('A', 'd-z', { paymentExternalId: 'p2' }), staged('B', null, { paymentExternalId: 'p3' })],
        known,
        UPDATE,
      );
      expect(plan.errors).toBe(1);
      expect(plan.counts.payments).toBe(2);
    });

    it('the external id of a matched debtor is not checked (it is never changed)', () => {
      const plan = planChunk([staged('A', null, { debtorExternalId: 'c-z' })], known, UPDATE);
      expect(plan.errors).toBe(0);
      expect(plan.rows[0].take & Bit.externalId).toBe(0);
    });

    it('two new debtors of the file with one external id: the second is refused', () => {
      const plan = planChunk([staged('N1', null, { debtorExternalId: 'c-new' }), staged('N2', null, { debtorExternalId: 'c-new' })], known, UPDATE);
      expect(plan.rows.map((r) => r.rowNumber)).toEqual([2]);
      expect(plan.errorDetails).toEqual([`row 3: Cliente: ${MergeMessages.externalIdInUse('c-new')}`]);
    });

    it('an erased subject is refused when the row would create it, not when its document matches a live debtor', () => {
      const plan = planChunk(
        [staged('N', null, { debtorExternalId: 'gone' }), staged('A', null, { debtorExternalId: 'gone' })],
        known,
        UPDATE,
      );
      expect(plan.errorDetails).toEqual(["row 2: Cliente: this debtor was erased at the data subject's request and cannot be recreated (erased_subject)"]);
      expect(plan.rows.map((r) => r.debtorId)).toEqual(['dbt_a']);
    });

    it('a refused row creates nothing: the next row of its document creates the debtor, with its own id', () => {
      const plan = planChunk([staged('N', 'd-z'), staged('N', 'd-fresh')], known, UPDATE);
      expect(plan.errors).toBe(1);
      expect(plan.rows.map((r) => [r.rowNumber, r.debtorId, r.debtorNew])).toEqual([[3, 'dbt_3', true]]);
    });

    it('a debt a new row claims belongs to it: another document declaring it later is refused', () => {
      const plan = planChunk([staged('N1', 'd-new'), staged('N2', 'd-new')], known, UPDATE);
      expect(plan.errorDetails).toEqual([`row 3: Referencia: ${MergeMessages.debtInUse('d-new')}`]);
    });

    it('the state is not modified', () => {
      planChunk([staged('N', 'd-new', { debtorExternalId: 'c-new' })], known, UPDATE);
      expect(known.externalIdOwners.has('c-new')).toBe(false);
      expect(known.debts.has('d-new')).toBe(false);
    });
  });

  it('rows refused while reading keep their lines and count as errors, in row order with the others', () => {
    const rows = [staged('A', 'd1'), { ...staged('B', null), errorDetails: ['row 3: Nombre: is required', 'row 3: Moneda: must be three capital letters (ISO 4217)'] }, staged('A', 'd1', { debtCurrency: 'USD' })];
    const plan = planChunk(rows, state(), UPDATE);
    expect(plan.errorDetails).toEqual([
      'row 3: Nombre: is required',
      'row 3: Moneda: must be three capital letters (ISO 4217)',
      `row 4: Moneda: ${MergeMessages.currencyMismatch('d1', 'EUR')}`,
    ]);
    expect({ created: plan.created, updated: plan.updated, errors: plan.errors }).toEqual({ created: 1, updated: 0, errors: 2 });
  });

  it('an opt-out is recorded when a row turns it on: for an existing debtor that had it off, or a new debtor', () => {
    const known = state({
      debtorsByDocument: new Map([
        [documentKey('national_id', 'OFF'), { id: 'dbt_off', optOut: false }],
        [documentKey('national_id', 'ON'), { id: 'dbt_on', optOut: true }],
      ]),
    });
    const plan = planChunk(
      [
        staged('OFF', null, { optOut: true }),
        staged('OFF', null, { optOut: true }),
        staged('ON', null, { optOut: true }),
        staged('NEW', null, { optOut: true }),
        staged('NEW2', null, { optOut: false }),
      ],
      known,
      UPDATE,
    );
    expect(plan.optOuts).toEqual(['dbt_off', 'dbt_5']);
  });
});
