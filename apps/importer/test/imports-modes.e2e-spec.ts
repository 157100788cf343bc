import { legacyErasureHash, type ImportMode, type ImportView } from '@dc/contracts';
import { csvLine, generateCsv, GENERATED_HEADER, identityMapping, insertDebt, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import { byExternalId, DebtorView, ImportClient, newPortfolio, startImportStack } from './import-kit';

/**
 * The four conflict modes seen through the read API (spec: POST imports, conflictResolution;
 * docs/imports.md): add never matches; update matches the oldest live debtor by document and
 * debts by debt_external_id; reconcile also marks paid every live active debt absent from the file;
 * replace swaps the portfolio's set, and a replace that fails leaves the old set as it was. Deleted
 * debtors are never revived; erased subjects are refused per row.
 */
describe('importer: conflict modes through the read API', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let client: ImportClient;

  /** Debtor identity + one debt per row, canonical header names. */
  const FULL = ['debtor_external_id', 'identity_first_name', 'identity_document_type', 'identity_document_number', 'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency'];
  /** Without debtor_external_id: the debtor is found by its document. */
  const BY_DOCUMENT = FULL.slice(1);
  /** Debtors only, no external id at all. */
  const NO_IDS = ['identity_first_name', 'identity_document_type', 'identity_document_number', 'phone_1'];

  const csv = (header: string[], rows: string[][]) => `${[header, ...rows].map((r) => csvLine(r)).join('\n')}\n`;
  const load = (pf: string, header: string[], rows: string[][], mode?: ImportMode) => client.load(pf, csv(header, rows), identityMapping(header), mode);
  const fresh = () => newPortfolio(operator, tenant.organizationId);
  const summary = (v: ImportView) => ({ status: v.status, created: v.created, updated: v.updated, errors: v.errors, processedRows: v.processedRows, totalRows: v.totalRows });
  const line = (row: number, column: string | RegExp) => expect.stringMatching(new RegExp(`^row ${row}: ${typeof column === 'string' ? column : column.source}: \\S`));
  const sorted = (xs: (string | null)[]) => [...xs].sort();

  beforeAll(async () => {
    ({ stack, operator, tenant, client } = await startImportStack());
  }, 60_000);
  afterAll(() => stack?.stop());

  describe('add', () => {
    it('always creates: debtor and debt external ids live in the portfolio are duplicated, and what was live is not changed (docs/adr/0041)', async () => {
      const pf = await fresh();
      const first = await load(pf, FULL, [
        ['c1', 'Ana', 'national_id', 'A1', 'd1', '100', '0', 'EUR'],
        ['c1', 'Ana', 'national_id', 'A1', 'd2', '200', '0', 'EUR'],
        ['c2', 'Luis', 'national_id', 'A2', 'd3', '300', '0', 'EUR'],
      ], 'add');
      expect(summary(first)).toEqual({ status: 'completed', created: 3, updated: 0, errors: 0, processedRows: 3, totalRows: 3 });
      const before = await client.debtors(pf);
      const debtsBefore = await client.debts(pf);
      expect(sorted(before.map((d) => d.externalId))).toEqual(['c1', 'c2']);

      const again = await load(pf, FULL, [
        ['c1', 'Ana', 'national_id', 'A1', 'd1', '150', '0', 'EUR'], // both live: a new debtor c1 with a new d1
        ['c1', 'Ana', 'national_id', 'A1', 'd8', '800', '0', 'EUR'], // the same new debtor (same document), a new debt
        ['c9', 'Eva', 'national_id', 'A9', 'd3', '300', '0', 'USD'], // new debtor, a second live d3 (its own currency)
        ['c10', 'Rosa', 'national_id', 'A10', 'd10', '1000', '0', 'EUR'], // new
        ['c11', 'Rosa', 'national_id', 'A11', 'd10', '1', '0', 'EUR'], // another debtor of the file with d10: its own debt
      ], 'add');
      expect(summary(again)).toEqual({ status: 'completed', created: 5, updated: 0, errors: 0, processedRows: 5, totalRows: 5 });
      expect(again.errorDetails).toEqual([]);
      const after = await client.debtors(pf);
      expect(sorted(after.map((d) => d.externalId))).toEqual(['c1', 'c1', 'c10', 'c11', 'c2', 'c9']);
      // The first load's debtors and debts are untouched.
      for (const d of before) expect(after.find((a) => a.id === d.id)).toEqual(d);
      const debtsAfter = await client.debts(pf);
      for (const d of debtsBefore) expect(debtsAfter.find((a) => a.id === d.id)).toEqual(d);
      expect(sorted(debtsAfter.map((d) => d.externalId))).toEqual(['d1', 'd1', 'd10', 'd10', 'd2', 'd3', 'd3', 'd8']);
      const newC1 = after.find((d) => d.externalId === 'c1' && !before.some((b) => b.id === d.id));
      expect(debtsAfter.filter((d) => d.debtorId === newC1?.id).map((d) => [d.externalId, d.totalAmount]).sort()).toEqual([['d1', 150], ['d8', 800]]);
      expect(debtsAfter.filter((d) => d.externalId === 'd3').map((d) => d.currency).sort()).toEqual(['EUR', 'USD']);
    });

    it('the same file loaded twice makes every debtor and debt twice (add always creates, docs/adr/0041)', async () => {
      const pf = await fresh();
      const header = ['identity_document_type', 'identity_document_number', 'identity_first_name', 'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency', 'debt_due_date'];
      const rows = [
        ['national_id', 'T1', 'Ana', 'IDEBT-1', '100', '0', 'EUR', '2026-12-31'],
        ['national_id', 'T2', 'Luis', 'IDEBT-2', '200', '50', 'EUR', '2026-12-31'],
      ];
      // One upload enqueued twice without an Idempotency-Key: the client asked for two imports.
      const key = await client.upload(pf, csv(header, rows));
      for (let i = 0; i < 2; i += 1) {
        const done = await client.wait((await client.enqueue(pf, key, identityMapping(header), 'add')).id);
        expect(summary(done)).toEqual({ status: 'completed', created: 2, updated: 0, errors: 0, processedRows: 2, totalRows: 2 });
        expect(done.errorDetails).toEqual([]);
      }
      expect(sorted((await client.debtors(pf)).map((d) => d.identityDocumentNumber))).toEqual(['T1', 'T1', 'T2', 'T2']);
      expect(sorted((await client.debts(pf)).map((d) => d.externalId))).toEqual(['IDEBT-1', 'IDEBT-1', 'IDEBT-2', 'IDEBT-2']);
    });

    it('a file without external ids loads again as duplicates', async () => {
      const pf = await fresh();
      const rows = [
        ['Ana', 'national_id', 'X1', '+34600000001'],
        ['Bea', 'national_id', 'X2', '+34600000002'],
      ];
      expect(summary(await load(pf, NO_IDS, rows, 'add'))).toEqual({ status: 'completed', created: 2, updated: 0, errors: 0, processedRows: 2, totalRows: 2 });
      expect(summary(await load(pf, NO_IDS, rows))).toEqual({ status: 'completed', created: 2, updated: 0, errors: 0, processedRows: 2, totalRows: 2 });
      const debtors = await client.debtors(pf);
      expect(sorted(debtors.map((d) => d.identityDocumentNumber))).toEqual(['X1', 'X1', 'X2', 'X2']);
      expect(debtors.map((d) => d.externalId)).toEqual([null, null, null, null]);
    });
  });

  describe('update', () => {
    it('matches the debtor by document and each debt by debt_external_id; new debts and debtors are created; a currency change or another debtor\'s debt is refused', async () => {
      const pf = await fresh();
      await load(pf, FULL, [
        ['u1', 'Ana', 'national_id', 'U1', 'ud1', '100', '10', 'EUR'],
        ['u1', 'Ana', 'national_id', 'U1', 'ud2', '200', '0', 'EUR'],
        ['u2', 'Luis', 'national_id', 'U2', 'ud3', '300', '0', 'EUR'],
      ]);
      const seeded = byExternalId(await client.debtors(pf));
      const seededDebts = byExternalId(await client.debts(pf));

      const view = await load(pf, BY_DOCUMENT, [
        ['Ana María', 'national_id', 'U1', 'ud1', '150', '50', 'EUR'], // updates ud1 and Ana
        ['Ana María', 'national_id', 'U1', 'ud4', '400', '0', 'EUR'], // a new debt of Ana
        ['Luis', 'national_id', 'U2', 'ud3', '300', '0', 'USD'], // currency never changes
        ['Carmen', 'national_id', 'U3', 'ud5', '500', '0', 'EUR'], // a new debtor
        ['Luis', 'national_id', 'U2', 'ud2', '200', '0', 'EUR'], // ud2 is live under Ana: refused, as in the batch
      ], 'update');
      expect(summary(view)).toEqual({ status: 'completed', created: 2, updated: 1, errors: 2, processedRows: 5, totalRows: 5 });
      expect(view.errorDetails).toEqual([line(4, 'debt_currency'), line(6, 'debt_external_id')]);

      const debtors = await client.debtors(pf);
      expect(debtors).toHaveLength(3);
      const byDoc = Object.fromEntries(debtors.map((d) => [d.identityDocumentNumber, d]));
      // Same debtors, updated in place; the external id was not in the file and is kept.
      expect(byDoc.U1).toMatchObject({ id: seeded.u1.id, externalId: 'u1', identityFirstName: 'Ana María' });
      expect(byDoc.U2).toEqual(seeded.u2);
      expect(byDoc.U3).toMatchObject({ externalId: null, identityFirstName: 'Carmen' });
      const debts = byExternalId(await client.debts(pf));
      expect(Object.keys(debts).sort()).toEqual(['ud1', 'ud2', 'ud3', 'ud4', 'ud5']);
      expect(debts.ud1).toMatchObject({ id: seededDebts.ud1.id, debtorId: seeded.u1.id, totalAmount: 150, paidAmount: 50, currency: 'EUR', status: 'active' });
      expect(debts.ud2).toEqual(seededDebts.ud2);
      expect(debts.ud3).toEqual(seededDebts.ud3);
      expect(debts.ud4).toMatchObject({ debtorId: seeded.u1.id, totalAmount: 400, status: 'active' });
      expect(debts.ud5).toMatchObject({ debtorId: byDoc.U3.id, totalAmount: 500 });

      // Amounts are a full snapshot: an empty paid amount is 0 (not the stored 50); paid = total is status paid.
      const snapshot = await load(pf, BY_DOCUMENT, [
        ['Ana María', 'national_id', 'U1', 'ud1', '150', '', 'EUR'],
        ['Ana María', 'national_id', 'U1', 'ud2', '200', '200', 'EUR'],
      ], 'update');
      expect(summary(snapshot)).toEqual({ status: 'completed', created: 0, updated: 2, errors: 0, processedRows: 2, totalRows: 2 });
      const after = byExternalId(await client.debts(pf));
      expect(after.ud1).toMatchObject({ id: seededDebts.ud1.id, totalAmount: 150, paidAmount: 0, status: 'active' });
      expect(after.ud2).toMatchObject({ id: seededDebts.ud2.id, totalAmount: 200, paidAmount: 200, status: 'paid' });
    });

    it('of several live debtors with the document, the oldest is updated', async () => {
      const pf = await fresh();
      await load(pf, NO_IDS, [['Ana', 'national_id', 'O1', '+34600000001']]);
      await load(pf, NO_IDS, [['Ana', 'national_id', 'O1', '+34600000001']]);
      const [oldest, newer] = [...(await client.debtors(pf))].sort((a, b) => (a.id < b.id ? -1 : 1));
      const view = await load(pf, NO_IDS, [['Zoe', 'national_id', 'O1', '+34600000001']], 'update');
      expect(summary(view)).toEqual({ status: 'completed', created: 0, updated: 1, errors: 0, processedRows: 1, totalRows: 1 });
      const after = Object.fromEntries((await client.debtors(pf)).map((d) => [d.id, d]));
      expect(after[oldest.id].identityFirstName).toBe('Zoe');
      expect(after[newer.id]).toEqual(newer);
    });

    it('after add made duplicates: the oldest debtor of the document is updated, with its own debt; a debt only another debtor holds is refused', async () => {
      const pf = await fresh();
      const row = ['x1', 'Ana', 'national_id', 'Q1', 'qd1', '100', '0', 'EUR'];
      await load(pf, FULL, [row], 'add');
      await load(pf, FULL, [row], 'add');
      const [oldest, newer] = [...(await client.debtors(pf))].sort((a, b) => (a.id < b.id ? -1 : 1));
      const debts = await client.debts(pf);
      const ofOldest = debts.find((d) => d.debtorId === oldest.id);
      const ofNewer = debts.find((d) => d.debtorId === newer.id);
      const view = await load(pf, BY_DOCUMENT, [
        ['Ana B', 'national_id', 'Q1', 'qd1', '120', '20', 'EUR'], // the oldest Ana, her own qd1
        ['Otto', 'national_id', 'Q2', 'qd1', '1', '0', 'EUR'], // qd1 is live under both Anas only: refused
      ], 'update');
      expect(summary(view)).toEqual({ status: 'completed', created: 0, updated: 1, errors: 1, processedRows: 2, totalRows: 2 });
      expect(view.errorDetails).toEqual([line(3, 'debt_external_id')]);
      const after = Object.fromEntries((await client.debts(pf)).map((d) => [d.id, d]));
      expect(after[ofOldest?.id ?? '']).toMatchObject({ debtorId: oldest.id, totalAmount: 120, paidAmount: 20 });
      expect(after[ofNewer?.id ?? '']).toEqual(ofNewer);
      const debtors = Object.fromEntries((await client.debtors(pf)).map((d) => [d.id, d]));
      expect(debtors[oldest.id].identityFirstName).toBe('Ana B');
      expect(debtors[newer.id]).toEqual(newer);
    });

    it('a deleted debtor is never revived: the same document and ids make a new debtor and debt', async () => {
      const pf = await fresh();
      const row = ['k1', 'Ana', 'national_id', 'K1', 'kd1', '100', '0', 'EUR'];
      await load(pf, FULL, [row]);
      const [old] = await client.debtors(pf);
      const [oldDebt] = await client.debts(pf);
      await operator.expect(204, 'DELETE', `/debtors/${old.id}`);
      const view = await load(pf, FULL, [row], 'update');
      expect(summary(view)).toEqual({ status: 'completed', created: 1, updated: 0, errors: 0, processedRows: 1, totalRows: 1 });
      const debtors = await client.debtors(pf);
      expect(debtors).toEqual([expect.objectContaining({ externalId: 'k1', identityDocumentNumber: 'K1' })]);
      expect(debtors[0].id).not.toBe(old.id);
      const debts = await client.debts(pf);
      expect(debts).toEqual([expect.objectContaining({ externalId: 'kd1', debtorId: debtors[0].id })]);
      expect(debts[0].id).not.toBe(oldDebt.id);
      expect((await client.get(`/debtors/${old.id}`)).status).toBe(404);
      expect((await client.get(`/debts/${oldDebt.id}`)).status).toBe(404);
    });
  });

  it.each(['add', 'update', 'reconcile'] as const)('%s: an erased subject is refused per row, the other rows load', async (mode) => {
    const pf = await fresh();
    await load(pf, FULL, [
      ['e1', 'Ana', 'national_id', 'E1', 'ed1', '100', '0', 'EUR'],
      ['e2', 'Luis', 'national_id', 'E2', 'ed2', '100', '0', 'EUR'],
    ]);
    const e1 = byExternalId(await client.debtors(pf)).e1;
    await operator.expect(200, 'POST', `/debtors/${e1.id}/erase`);
    const view = await load(pf, FULL, [
      ['e1', 'Ana', 'national_id', 'E1', 'ed1', '100', '0', 'EUR'],
      ['e3', 'Eva', 'national_id', 'E3', 'ed3', '100', '0', 'EUR'],
    ], mode);
    expect(summary(view)).toEqual({ status: 'completed', created: 1, updated: 0, errors: 1, processedRows: 2, totalRows: 2 });
    expect(view.errorDetails).toEqual([line(2, 'debtor_external_id')]);
    expect(sorted((await client.debtors(pf)).map((d) => d.externalId))).toEqual(['e2', 'e3']);
    expect(sorted((await client.debts(pf)).map((d) => d.externalId))).toEqual(['ed2', 'ed3']);
  });

  it('an erased subject is refused whatever the Unicode normalisation of its external id, and by a legacy (SHA-256) tombstone', async () => {
    const pf = await fresh();
    const nfc = 'Jos\u00e9-77';
    const nfd = 'Jose\u0301-77';
    expect(nfd).not.toBe(nfc);
    await load(pf, FULL, [[nfc, 'José', 'national_id', 'U1', 'ud1', '100', '0', 'EUR']]);
    await operator.expect(200, 'POST', `/debtors/${byExternalId(await client.debtors(pf))[nfc].id}/erase`);
    // A tombstone written before tombstones were keyed: the unsalted SHA-256 of the id as it was sent.
    await withDatabase(stack.databaseUrl, (c) =>
      c.query(`INSERT INTO debtor_erasures (portfolio_id, external_id_hash, scheme) VALUES ($1, $2, 'sha256')`, [pf, legacyErasureHash('legacy-77')]),
    );
    const view = await load(pf, FULL, [
      [nfd, 'José', 'national_id', 'U2', 'ud2', '100', '0', 'EUR'],
      ['legacy-77', 'Eva', 'national_id', 'U3', 'ud3', '100', '0', 'EUR'],
      ['fresh-77', 'Rosa', 'national_id', 'U4', 'ud4', '100', '0', 'EUR'],
    ], 'update');
    expect(summary(view)).toEqual({ status: 'completed', created: 1, updated: 0, errors: 2, processedRows: 3, totalRows: 3 });
    expect(view.errorDetails).toEqual([line(2, 'debtor_external_id'), line(3, 'debtor_external_id')]);
    expect(view.errorDetails.every((l) => l.endsWith('(erased_subject)'))).toBe(true);
    expect((await client.debtors(pf)).map((d) => d.externalId)).toEqual(['fresh-77']);
  });

  it('reconcile: updates like update, and every live active debt of the portfolio missing from the file becomes paid', async () => {
    const pf = await fresh();
    const elsewhere = await fresh();
    await load(pf, FULL, [
      ['r1', 'Ana', 'national_id', 'R1', 'rd1', '100', '0', 'EUR'],
      ['r1', 'Ana', 'national_id', 'R1', 'rd2', '200', '50', 'EUR'],
      ['r2', 'Luis', 'national_id', 'R2', 'rd3', '300', '0', 'EUR'],
      ['r3', 'Eva', 'national_id', 'R3', 'rd4', '400', '400', 'EUR'],
    ]);
    await load(elsewhere, FULL, [['r1', 'Ana', 'national_id', 'R1', 'rd2', '200', '0', 'EUR']]);
    const debtorsBefore = await client.debtors(pf);
    const r1 = byExternalId(debtorsBefore).r1;
    // A cancelled debt absent from the file is not live-active: it stays as it is.
    await withDatabase(stack.databaseUrl, (c) => insertDebt(c, { portfolioId: pf, debtorId: r1.id, externalId: 'rd5', totalAmount: 500, status: 'cancelled' }));
    const before = byExternalId(await client.debts(pf));

    const view = await load(pf, BY_DOCUMENT, [
      ['Ana', 'national_id', 'R1', 'rd1', '100', '20', 'EUR'],
      ['Luis', 'national_id', 'R2', 'rd3', '300', '0', 'EUR'],
    ], 'reconcile');
    expect(summary(view)).toEqual({ status: 'completed', created: 0, updated: 2, errors: 0, processedRows: 2, totalRows: 2 });
    const debts = byExternalId(await client.debts(pf));
    expect(Object.keys(debts).sort()).toEqual(['rd1', 'rd2', 'rd3', 'rd4', 'rd5']);
    expect(debts.rd1).toMatchObject({ id: before.rd1.id, totalAmount: 100, paidAmount: 20, status: 'active' });
    expect(debts.rd2).toMatchObject({ id: before.rd2.id, totalAmount: 200, paidAmount: 200, status: 'paid' });
    expect(debts.rd3).toMatchObject({ id: before.rd3.id, totalAmount: 300, paidAmount: 0, status: 'active' });
    expect(debts.rd4).toMatchObject({ id: before.rd4.id, totalAmount: 400, paidAmount: 400, status: 'paid' });
    expect(debts.rd5).toEqual(before.rd5);
    // Debtors are not removed; another portfolio's debts are untouched.
    expect((await client.debtors(pf)).map((d) => d.id).sort()).toEqual(debtorsBefore.map((d) => d.id).sort());
    expect(await client.debts(elsewhere)).toEqual([expect.objectContaining({ externalId: 'rd2', paidAmount: 0, status: 'active' })]);
  });

  describe('replace', () => {
    let pf: string;
    let replaced: DebtorView[];

    it('soft-deletes the portfolio\'s debtors and debts and loads the file afresh (new ids, the old ones 404)', async () => {
      pf = await fresh();
      await load(pf, FULL, [
        ['p1', 'Ana', 'national_id', 'P1', 'pd1', '100', '0', 'EUR'],
        ['p2', 'Luis', 'national_id', 'P2', 'pd2', '200', '0', 'EUR'],
      ]);
      const old = await client.debtors(pf);
      const oldDebts = await client.debts(pf);
      const view = await load(pf, FULL, [
        ['p1', 'Ana', 'national_id', 'P1', 'pd1', '111', '0', 'EUR'],
        ['p9', 'Zoe', 'national_id', 'P9', 'pd9', '900', '0', 'EUR'],
      ], 'replace');
      expect(view.conflictResolution).toBe('replace');
      expect(summary(view)).toEqual({ status: 'completed', created: 2, updated: 0, errors: 0, processedRows: 2, totalRows: 2 });
      replaced = await client.debtors(pf);
      expect(sorted(replaced.map((d) => d.externalId))).toEqual(['p1', 'p9']);
      for (const d of replaced) expect(old.map((o) => o.id)).not.toContain(d.id);
      const debts = byExternalId(await client.debts(pf));
      expect(Object.keys(debts).sort()).toEqual(['pd1', 'pd9']);
      expect(debts.pd1).toMatchObject({ totalAmount: 111, debtorId: byExternalId(replaced).p1.id });
      expect(oldDebts.map((d) => d.id)).not.toContain(debts.pd1.id);
      for (const d of old) expect((await client.get(`/debtors/${d.id}`)).status).toBe(404);
      for (const d of oldDebts) expect((await client.get(`/debts/${d.id}`)).status).toBe(404);
    });

    it('all or nothing: a replace whose file fails after several chunks leaves the old set exactly as it was', async () => {
      expect(replaced).toBeDefined();
      const debtsBefore = await client.debts(pf);
      // 3,000 good rows (six chunks of 500), then a quote that is never closed.
      const broken = `${generateCsv(3000, { prefix: 'rf' })}rf-x,"Broken,national_id,RFX,rf-dx,1,0,EUR\n`;
      const view = await client.load(pf, broken, identityMapping(GENERATED_HEADER), 'replace');
      expect(view).toMatchObject({ status: 'failed', failureReason: expect.stringMatching(/quote/i) });
      expect(await client.debtors(pf)).toEqual(replaced);
      expect(await client.debts(pf)).toEqual(debtsBefore);
      for (const d of replaced) expect((await client.get(`/debtors/${d.id}`)).status).toBe(200);
    }, 60_000);
  });
});
