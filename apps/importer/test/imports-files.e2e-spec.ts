import type { ColumnMappingDto, ImportView } from '@dc/contracts';
import { generateCsv, GENERATED_HEADER, identityMapping, OperatorClient, Stack, Tenant } from '@dc/testing';
import { byExternalId, fixture, ImportClient, ISO, mapping, newPortfolio, startImportStack } from './import-kit';

/**
 * What the importer reads (docs/imports.md): the fixtures in
 * fixtures/ok/ load completely (BOM, CRLF, quotes, the delimiter rule, every canonical field), those
 * in fixtures/not-ok/ show bad rows refused with their record number and CSV column while the good
 * rows load, and a file that cannot be parsed ends failed. Also: counters move while an import
 * runs, and errorDetails is capped while `errors` counts every refused row.
 */
describe('importer: CSV files (ok/ and not-ok/ fixtures)', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let client: ImportClient;

  const canonical = (text: Buffer) => identityMapping(text.toString('utf8').replace(/^\uFEFF/, '').split(/\r?\n/)[0].split(','));
  const fresh = () => newPortfolio(operator, tenant.organizationId);

  beforeAll(async () => {
    ({ stack, operator, tenant, client } = await startImportStack());
  }, 60_000);
  afterAll(() => stack?.stop());

  const completed = (rows: number, extra: Partial<ImportView> = {}) =>
    expect.objectContaining({ status: 'completed', created: rows, updated: 0, errors: 0, processedRows: rows, totalRows: rows, errorDetails: [], failureReason: null, ...extra });

  describe('ok/', () => {
    it('bom-crlf.csv: a UTF-8 BOM before the header and CRLF line ends are not part of any value', async () => {
      const pf = await fresh();
      const file = fixture('ok/bom-crlf.csv');
      expect(await client.load(pf, file, canonical(file))).toEqual(completed(2));
      const debtors = byExternalId(await client.debtors(pf));
      expect(Object.keys(debtors).sort()).toEqual(['bc-1', 'bc-2']);
      expect(debtors['bc-1']).toMatchObject({ identityFirstName: 'Ana', identityLastName: 'García', identityDocumentType: 'national_id', identityDocumentNumber: '11111111A' });
      expect(debtors['bc-1'].contactInfoPhoneNumbers.map((p) => p.phone)).toEqual(['+34600000001']);
      expect(debtors['bc-2'].contactInfoPhoneNumbers.map((p) => p.phone)).toEqual(['+34 600 000 002']);
      const debts = byExternalId(await client.debts(pf));
      expect(debts['bc-d1']).toMatchObject({ debtorId: debtors['bc-1'].id, totalAmount: 100.5, paidAmount: 0, currency: 'EUR', status: 'active', dueDate: '2026-01-31' });
      expect(debts['bc-d2']).toMatchObject({ debtorId: debtors['bc-2'].id, totalAmount: 250, paidAmount: 25.25, currency: 'EUR', status: 'active', dueDate: '2026-02-28' });
    });

    it('quoted.csv: quoted delimiters, line ends and "" escapes; client header names; a null-mapped and an unmapped column are ignored', async () => {
      const pf = await fresh();
      const view = await client.load(
        pf,
        fixture('ok/quoted.csv'),
        mapping([
          ['Cliente', 'debtor_external_id'],
          ['Nombre', 'identity_first_name'],
          ['Apellidos', 'identity_last_name'],
          ['Tipo doc', 'identity_document_type'],
          ['Documento', 'identity_document_number'],
          ['Teléfono', 'phone_1'],
          ['Email', 'email_1'],
          ['Referencia', 'debt_external_id'],
          ['Importe', 'debt_total_amount'],
          ['Pagado', 'debt_paid_amount'],
          ['Moneda', 'debt_currency'],
          ['Descripción', 'debt_description'],
          ['Notas', null],
        ]),
      );
      // Two records, though the file has four lines after the header.
      expect(view).toEqual(completed(2));
      const debtors = byExternalId(await client.debtors(pf));
      expect(debtors['q-1']).toMatchObject({ identityFirstName: 'García, Ana', identityLastName: 'O"Brien', identityDocumentNumber: '33333333C' });
      expect(debtors['q-1'].contactInfoPhoneNumbers.map((p) => p.phone)).toEqual(['+34600000003']);
      expect(debtors['q-1'].contactInfoEmails.map((e) => e.address)).toEqual(['ana@example.com']);
      expect(debtors['q-2']).toMatchObject({ identityFirstName: 'Luis', identityLastName: null, identityDocumentNumber: '44444444D', contactInfoEmails: [] });
      expect(debtors['q-2'].contactInfoPhoneNumbers.map((p) => p.phone)).toEqual(['+34 600 000 004']);
      const debts = byExternalId(await client.debts(pf));
      expect(debts['q-d1']).toMatchObject({ debtorId: debtors['q-1'].id, totalAmount: 1234.5, paidAmount: 0, description: 'line one\nline two, with comma' });
      expect(debts['q-d2']).toMatchObject({ debtorId: debtors['q-2'].id, totalAmount: 10, paidAmount: 0, description: 'He said "pay"' });
    });

    it.each(['semicolon', 'tab', 'pipe'])('%s.csv: the delimiter is detected from the header; other delimiters are plain text', async (name) => {
      const pf = await fresh();
      const file = fixture(`ok/${name}.csv`);
      const header = file.toString('utf8').split('\n')[0].split({ semicolon: ';', tab: '\t', pipe: '|' }[name]!);
      expect(await client.load(pf, file, identityMapping(header))).toEqual(completed(2));
      const debtors = byExternalId(await client.debtors(pf));
      expect(debtors['s-1']).toMatchObject({ identityFirstName: 'García, Ana', identityDocumentNumber: '55555555E' });
      expect(debtors['s-2']).toMatchObject({ identityFirstName: 'Luis', identityDocumentNumber: '66666666F' });
      const debts = byExternalId(await client.debts(pf));
      expect(debts['s-d1']).toMatchObject({ debtorId: debtors['s-1'].id, totalAmount: 99.99, currency: 'EUR', description: 'a, b and c' });
      expect(debts['s-d2']).toMatchObject({ debtorId: debtors['s-2'].id, totalAmount: 10, currency: 'EUR', description: 'semi;colon|pipe\ttab,comma' });
    });

    it('multi-debt.csv: rows sharing a document are one debtor with one debt per row', async () => {
      const pf = await fresh();
      const file = fixture('ok/multi-debt.csv');
      expect(await client.load(pf, file, canonical(file))).toEqual(completed(4));
      const debtors = byExternalId(await client.debtors(pf));
      expect(Object.keys(debtors).sort()).toEqual(['m-1', 'm-2']);
      const debts = await client.debts(pf);
      const of = (debtorId: string) => debts.filter((d) => d.debtorId === debtorId).map((d) => [d.externalId, d.totalAmount]).sort();
      expect(of(debtors['m-1'].id)).toEqual([['m-d1', 100], ['m-d2', 200], ['m-d4', 400]]);
      expect(of(debtors['m-2'].id)).toEqual([['m-d3', 300]]);
    });

    it('full-fields.csv: every canonical field lands in the debtor and debt representations (no final line end)', async () => {
      const pf = await fresh();
      const file = fixture('ok/full-fields.csv');
      expect(await client.load(pf, file, canonical(file))).toEqual(completed(2));
      const debtors = byExternalId(await client.debtors(pf));
      const { contactInfoPhoneNumbers: phones1, contactInfoEmails: emails1, ...f1 } = debtors['f-1'];
      expect(f1).toEqual({
        id: expect.stringMatching(/^dbt_/),
        portfolioId: pf,
        externalId: 'f-1',
        status: 'active',
        priority: 0,
        identityFirstName: 'Ana',
        identityLastName: 'García',
        identityDocumentType: 'passport',
        identityDocumentNumber: 'X123',
        identityEntityType: 'individual',
        contactInfoContactName: 'Ana G.',
        contactInfoAddressStreet: 'Calle Mayor 1',
        contactInfoAddressCity: 'Madrid',
        contactInfoAddressState: 'MD',
        contactInfoAddressPostalCode: '28001',
        contactInfoAddressCountry: 'ES',
        complianceOptOut: true, // yes
        complianceConsentToCall: false, // FALSE
        complianceConsentToWhatsapp: true, // 1
        complianceConsentToEmail: false, // no
        complianceConsentToSms: false, // 0
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(phones1.map((p) => p.phone)).toEqual(['+34600000010', '+34 911 22 33 44', '+12025550101']);
      expect(emails1.map((e) => e.address)).toEqual(['ana@example.com', 'ana.work@example.com']);
      // Empty values: nothing stored; compliance flags keep the defaults of a new debtor.
      expect(debtors['f-2']).toMatchObject({
        identityFirstName: 'Luis',
        identityLastName: null,
        identityEntityType: null,
        contactInfoContactName: null,
        contactInfoAddressStreet: null,
        contactInfoAddressCountry: null,
        contactInfoPhoneNumbers: [],
        contactInfoEmails: [],
        complianceOptOut: false,
        complianceConsentToCall: true,
        complianceConsentToWhatsapp: false,
        complianceConsentToEmail: true,
        complianceConsentToSms: true,
      });
      const debts = byExternalId(await client.debts(pf));
      expect(debts['f-d1']).toEqual({
        id: expect.stringMatching(/^debt_/),
        portfolioId: pf,
        debtorId: debtors['f-1'].id,
        externalId: 'f-d1',
        totalAmount: 1234.5678,
        paidAmount: 200.25,
        currency: 'EUR',
        status: 'active',
        dueDate: '2026-01-31',
        issueDate: '2025-12-01T10:00:00Z',
        description: 'Personal loan',
        debtType: 'loan',
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(debts['f-d2']).toMatchObject({ debtorId: debtors['f-2'].id, totalAmount: 10, paidAmount: 0, currency: 'USD', status: 'active', dueDate: null, issueDate: null, description: null, debtType: null });
    });
  });

  describe('not-ok/', () => {
    it('bad-rows.csv: each bad row is refused as "row <record number>: <CSV column>: <message>"; the good rows load', async () => {
      const pf = await fresh();
      const view = await client.load(
        pf,
        fixture('not-ok/bad-rows.csv'),
        mapping([
          ['Cliente', 'debtor_external_id'],
          ['Nombre', 'identity_first_name'],
          ['Tipo doc', 'identity_document_type'],
          ['Documento', 'identity_document_number'],
          ['Teléfono', 'phone_1'],
          ['Email', 'email_1'],
          ['Referencia', 'debt_external_id'],
          ['Importe', 'debt_total_amount'],
          ['Pagado', 'debt_paid_amount'],
          ['Moneda', 'debt_currency'],
          ['Vencimiento', 'debt_due_date'],
        ]),
      );
      const line = (row: number, column?: string) => expect.stringMatching(new RegExp(`^row ${row}: ${column ? `${column}: \\S` : '\\S'}`));
      expect(view).toEqual(
        expect.objectContaining({
          status: 'completed',
          created: 4,
          updated: 0,
          errors: 13,
          processedRows: 17,
          totalRows: 17,
          failureReason: null,
          // Record numbers, header = row 1: row 4 spans two lines, so Dani is row 5 on line 6.
          errorDetails: [
            line(3, 'Teléfono'), // 12345
            line(5, 'Moneda'), // euro
            line(6, 'Moneda'), // ABC: not ISO 4217
            line(7, 'Importe'), // -5
            line(8, 'Importe'), // 10.12345
            line(9, 'Pagado'), // 150 paid of 100
            line(10, 'Vencimiento'), // 31/01/2026
            line(11, 'Email'), // not-an-email
            line(12, 'Nombre'), // empty
            line(13), // 10 fields of 11
            line(15, 'Importe'), // 0
            line(16, 'Vencimiento'), // 2026-02-30
            line(17), // 12 fields of 11
          ],
        }),
      );
      const debtors = byExternalId(await client.debtors(pf));
      expect(Object.keys(debtors).sort()).toEqual(['n-1', 'n-13', 'n-17', 'n-3']);
      expect(debtors['n-3'].identityFirstName).toBe('Carla\nMulti');
      const debts = byExternalId(await client.debts(pf));
      expect(Object.keys(debts).sort()).toEqual(['n-d1', 'n-d13', 'n-d17', 'n-d3']);
      expect(debts['n-d13']).toMatchObject({ totalAmount: 100, paidAmount: 100, status: 'paid', dueDate: '2026-02-28' });
      expect(debts['n-d17']).toMatchObject({ totalAmount: 1.5, paidAmount: 0.5, status: 'active', dueDate: '2026-04-30' });
    });

    it('unclosed-quote.csv: a file that cannot be parsed ends failed with a clear failureReason', async () => {
      const pf = await fresh();
      const file = fixture('not-ok/unclosed-quote.csv');
      const view = await client.load(pf, file, canonical(file));
      expect(view).toEqual(expect.objectContaining({ status: 'failed', failureReason: expect.stringMatching(/quote/i), finishedAt: ISO }));
      expect(view.processedRows).toBe(view.created + view.updated + view.errors);
    });
  });

  it('errorDetails keeps the first 100 lines in file order while errors counts every refused row', async () => {
    const pf = await fresh();
    const bad = new Set(Array.from({ length: 150 }, (_, k) => k * 20 + 19));
    const view = await client.load(pf, generateCsv(3000, { prefix: 'cap', badPhoneRows: bad }), identityMapping(GENERATED_HEADER));
    expect(view).toMatchObject({ status: 'completed', created: 2850, updated: 0, errors: 150, processedRows: 3000, totalRows: 3000 });
    expect(view.errorDetails).toEqual([...bad].slice(0, 100).map((i) => expect.stringMatching(new RegExp(`^row ${i + 2}: phone_1: \\S`))));
  });

  it('counters move while a file is processed: processedRows = created + updated + errors ≤ totalRows, never going back', async () => {
    const pf = await fresh();
    const rows = 20_000;
    const bad = new Set(Array.from({ length: 20 }, (_, k) => k * 1000 + 500));
    const key = await client.upload(pf, generateCsv(rows, { prefix: 'prog', badPhoneRows: bad }));
    const queued = await client.enqueue(pf, key, identityMapping(GENERATED_HEADER) as ColumnMappingDto[]);
    const seen: ImportView[] = [];
    const done = await client.wait(queued.id, 120_000, (v) => seen.push(v));
    expect(done).toMatchObject({ status: 'completed', created: rows - 20, updated: 0, errors: 20, processedRows: rows, totalRows: rows });
    const midway = seen.filter((v) => v.status === 'processing' && ((v.processedRows > 0 && v.processedRows < rows) || (v.totalRows > 0 && v.totalRows < rows)));
    expect(midway.length).toBeGreaterThan(0);
    for (const [i, v] of seen.entries()) {
      expect(v.processedRows).toBe(v.created + v.updated + v.errors);
      expect(v.processedRows).toBeLessThanOrEqual(v.totalRows);
      if (i > 0) {
        expect(v.processedRows).toBeGreaterThanOrEqual(seen[i - 1].processedRows);
        expect(v.totalRows).toBeGreaterThanOrEqual(seen[i - 1].totalRows);
      }
    }
  }, 150_000);
});
