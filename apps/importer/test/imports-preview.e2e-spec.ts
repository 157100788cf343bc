import { createTenant, csvLine, OperatorClient, previewImport, Stack, Tenant, uploadCsv } from '@dc/testing';
import { ImportClient, ISO, mapping, newPortfolio, startImportStack } from './import-kit';

/**
 * POST /v1/portfolios/{id}/imports/preview (docs/imports.md, "Preview"): the dialect, the first rows
 * and a suggested columnMapping of an uploaded file, from its names (English, Spanish), its values
 * and the portfolio's last load; nothing recorded, the key still loadable; enqueue's refusals.
 */
describe('imports preview', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let other: Tenant;
  let client: ImportClient;

  const requestId = (res: { headers: Headers }) => res.headers.get('x-request-id');
  const csv = (rows: string[][], delimiter = ',') => `${rows.map((r) => csvLine(r, delimiter)).join('\r\n')}\r\n`;
  const pairs = (suggested: { sourceColumn: string; targetField: string | null }[]) => suggested.map((s) => [s.sourceColumn, s.targetField]);

  beforeAll(async () => {
    ({ stack, operator, tenant, client } = await startImportStack());
    other = await createTenant(operator);
  }, 60_000);
  afterAll(() => stack?.stop());

  it('a Spanish file: its dialect, first rows, exact row count and a mapping from the names, valid as it is', async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const rows = [
      ['Referencia', 'Tipo de documento', 'DNI', 'Nombre', 'Apellidos', 'Teléfono', 'Importe', 'Moneda', 'Vencimiento', 'Notas'],
      ['F-1', 'DNI', '12345678Z', 'Ana', 'López', '+34 600 11 22 33', '120.50', 'EUR', '2026-12-31', 'llamar tarde'],
      ['F-2', 'NIE', 'X1234567L', 'Luis', 'Pérez; hijo', '+34 600 44 55 66', '80', 'EUR', '2027-01-15', ''],
    ];
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, `\uFEFF${csv(rows, ';')}`);
    const res = await previewImport(stack.publicUrl, tenant.key, pf, { storageKey });
    expect(res.status).toBe(200);
    const view = res.body.data;
    expect({ ...view, suggestedMapping: undefined }).toEqual({
      storageKey,
      delimiter: ';',
      encoding: 'utf-8',
      bom: true,
      header: rows[0],
      sampleRows: rows.slice(1),
      rowCount: 2,
      rowCountEstimated: false,
      fileBytes: Buffer.byteLength(`\uFEFF${csv(rows, ';')}`),
      suggestedMapping: undefined,
      warnings: [],
      expiresAt: ISO,
    });
    expect(pairs(view.suggestedMapping)).toEqual([
      ['Referencia', 'debt_external_id'],
      ['Tipo de documento', 'identity_document_type'],
      ['DNI', 'identity_document_number'],
      ['Nombre', 'identity_first_name'],
      ['Apellidos', 'identity_last_name'],
      ['Teléfono', 'phone_1'],
      ['Importe', 'debt_total_amount'],
      ['Moneda', 'debt_currency'],
      ['Vencimiento', 'debt_due_date'],
      ['Notas', null],
    ]);
    expect(view.suggestedMapping[5]).toEqual({ sourceColumn: 'Teléfono', targetField: 'phone_1', confidence: 0.9, reason: expect.stringContaining('Teléfono'), reasonCode: 'synonym' });
    expect(view.suggestedMapping[9]).toEqual({ sourceColumn: 'Notas', targetField: null, confidence: 0, reason: null, reasonCode: null });

    // Nothing consumed: the suggestion, as it is, loads the same key.
    const columnMapping = view.suggestedMapping.filter((s) => s.targetField !== null).map(({ sourceColumn, targetField }) => ({ sourceColumn, targetField }));
    const done = await client.wait((await client.enqueue(pf, storageKey, columnMapping)).id);
    expect({ status: done.status, created: done.created, errors: done.errors }).toEqual({ status: 'completed', created: 2, errors: 0 });
    const debtors = await client.debtors(pf);
    expect(debtors.map((d) => [d.identityFirstName, d.identityLastName, d.contactInfoPhoneNumbers.map((p) => p.phone)]).sort()).toEqual([
      ['Ana', 'López', ['+34 600 11 22 33']],
      ['Luis', 'Pérez; hijo', ['+34 600 44 55 66']],
    ]);
  });

  it('English names, and unnamed columns recognised by their values (E.164, ISO 4217, dates, emails)', async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const rows = [
      ['First name', 'Surname', 'Document type', 'Document number', 'Invoice', 'Balance', 'col7', 'col8', 'col9', 'col10'],
      ['Ann', 'Lee', 'passport', 'P1', 'INV-1', '10', '+44 7700 900123', 'GBP', '2026-11-30', 'ann@example.com'],
      ['Bob', 'Ray', 'passport', 'P2', 'INV-2', '20', '+44 7700 900456', 'GBP', '2026-12-01', 'bob@example.com'],
    ];
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, csv(rows));
    const view = (await previewImport(stack.publicUrl, tenant.key, pf, { storageKey })).body.data;
    expect(pairs(view.suggestedMapping)).toEqual([
      ['First name', 'identity_first_name'],
      ['Surname', 'identity_last_name'],
      ['Document type', 'identity_document_type'],
      ['Document number', 'identity_document_number'],
      ['Invoice', 'debt_external_id'],
      ['Balance', 'debt_total_amount'],
      ['col7', 'phone_1'],
      ['col8', 'debt_currency'],
      ['col9', 'debt_due_date'],
      ['col10', 'email_1'],
    ]);
    expect(view.suggestedMapping.slice(6).map((s) => s.reasonCode)).toEqual(['value_pattern', 'value_pattern', 'value_pattern', 'value_pattern']);
    expect(view.warnings).toEqual([]);
  });

  it("the portfolio's last completed load's mapping is suggested again for its columns; a long file's count is estimated", async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const header = ['cliente_x', 'nom', 'td', 'doc'];
    const used = mapping([['cliente_x', 'debtor_external_id'], ['nom', 'identity_first_name'], ['td', 'identity_document_type'], ['doc', 'identity_document_number']]);
    const first = await client.load(pf, csv([header, ['c1', 'Ana', 'dni', '1']]), used);
    expect(first.status).toBe('completed');
    const body = csv([header, ...Array.from({ length: 2000 }, (_, i) => [`c${String(i).padStart(4, '0')}`, `Name ${String(i).padStart(4, '0')}`, 'dni', String(100000 + i)])]);
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, body);
    const view = (await previewImport(stack.publicUrl, tenant.key, pf, { storageKey })).body.data;
    expect(view.suggestedMapping.map((s) => [s.targetField, s.reasonCode])).toEqual([
      ['debtor_external_id', 'previous_import'],
      ['identity_first_name', 'previous_import'],
      ['identity_document_type', 'previous_import'],
      ['identity_document_number', 'previous_import'],
    ]);
    expect(view.sampleRows).toHaveLength(10);
    expect(view.rowCountEstimated).toBe(true);
    expect(Math.abs(view.rowCount - 2000)).toBeLessThanOrEqual(100);
  });

  it("enqueue's refusals, 400 naming storageKey; another organization's portfolio is 404; nothing is recorded", async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const otherKey = await uploadCsv(stack.publicUrl, other.key, other.portfolioIds[0], csv([['a'], ['1']]));
    const refused = await previewImport(stack.publicUrl, tenant.key, pf, { storageKey: otherKey });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: {
        code: 'validation_error', message: 'storageKey was not issued by upload-url for this portfolio', requestId: requestId(refused),
        issues: [{ path: 'storageKey', message: 'storageKey was not issued by upload-url for this portfolio' }],
      },
    });
    const foreign = await previewImport(stack.publicUrl, tenant.key, other.portfolioIds[0], { storageKey: otherKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: requestId(foreign) } });
    const missing = await previewImport(stack.publicUrl, tenant.key, pf, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('validation_error');
    const readOnly = await previewImport(stack.publicUrl, tenant.readKey, pf, { storageKey: otherKey });
    expect(readOnly.status).toBe(403);
  });

  it('a file in Windows-1252, or with rows of the wrong width: warned, with what the suggestion lacks', async () => {
    const pf = await newPortfolio(operator, tenant.organizationId);
    const bytes = Buffer.concat([Buffer.from('Nombre,Importe\r\n'), Buffer.from([0x4a, 0x6f, 0x73, 0xe9]), Buffer.from(',10\r\nAna\r\n')]);
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, bytes);
    const view = (await previewImport(stack.publicUrl, tenant.key, pf, { storageKey })).body.data;
    expect(view.warnings).toEqual([
      expect.stringMatching(/^the start of the file is not valid UTF-8/),
      'row 3 has 1 fields; the header has 2: it would be refused',
      // "Importe" alone is not a debt (no reference, no currency): the suggestion leaves it out.
      'the suggested mapping is not complete: every row needs identity_first_name, identity_document_type, identity_document_number: ' +
        'map a column to identity_document_type, identity_document_number',
    ]);
    expect(view.suggestedMapping.map((s) => s.targetField)).toEqual(['identity_first_name', null]);
  });
});
