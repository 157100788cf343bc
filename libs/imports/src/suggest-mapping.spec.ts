import { ImportField, REQUIRED_DEBT_FIELDS, REQUIRED_PAYMENT_FIELDS } from '@dc/contracts';
import { checkMapping } from './column-mapping';
import { MAPPING_SYNONYMS, MappingSuggestion, suggestMapping } from './suggest-mapping';

const fields = (result: MappingSuggestion[]) => result.map((s) => s.targetField);
const nonNull = (result: MappingSuggestion[]) => result.flatMap((s) => (s.targetField ? [{ sourceColumn: s.sourceColumn, targetField: s.targetField }] : []));
const byColumn = (result: MappingSuggestion[], column: string): MappingSuggestion => {
  const found = result.find((s) => s.sourceColumn === column);
  if (!found) throw new Error(`no suggestion for "${column}"`);
  return found;
};

/** The suggestion for `name` alone, with the other required fields of its debt/payment group present by their exact names. */
function alone(name: string, field: ImportField): MappingSuggestion {
  const group = field.startsWith('debt_') ? REQUIRED_DEBT_FIELDS : field.startsWith('payment_') ? REQUIRED_PAYMENT_FIELDS : [];
  return suggestMapping({ header: [name, ...group.filter((f) => f !== field)], sampleRows: [] })[0];
}

const UNMATCHED = { targetField: null, confidence: 0, reason: null, reasonCode: null };

describe('suggestMapping', () => {
  it('returns nothing for an empty header, and an unmatched item for a column nothing recognises', () => {
    expect(suggestMapping({ header: [], sampleRows: [] })).toEqual([]);
    expect(suggestMapping({ header: ['Observaciones'], sampleRows: [['llamar por la tarde']] })).toEqual([{ sourceColumn: 'Observaciones', ...UNMATCHED }]);
  });

  it('maps English headers by synonym, in header order', () => {
    const header = [
      'Customer id', 'First name', 'Last name', 'Document type', 'Document number', 'Phone', 'Mobile', 'Email', 'Address', 'City', 'State', 'Zip',
      'Country', 'Invoice', 'Amount', 'Paid', 'Currency', 'Due date', 'Issue date', 'Description', 'Notes',
    ];
    const result = suggestMapping({ header, sampleRows: [] });
    expect(result.map((s) => s.sourceColumn)).toEqual(header);
    expect(fields(result)).toEqual([
      'debtor_external_id', 'identity_first_name', 'identity_last_name', 'identity_document_type', 'identity_document_number', 'phone_1', 'phone_2',
      'email_1', 'address_street', 'address_city', 'address_state', 'address_postal_code', 'address_country', 'debt_external_id', 'debt_total_amount',
      'debt_paid_amount', 'debt_currency', 'debt_due_date', 'debt_issue_date', 'debt_description', null,
    ]);
    expect(byColumn(result, 'First name')).toEqual({
      sourceColumn: 'First name', targetField: 'identity_first_name', confidence: 0.9, reason: 'synonym: "First name" is a known name of identity_first_name', reasonCode: 'synonym',
    });
    expect(byColumn(result, 'Notes')).toEqual({ sourceColumn: 'Notes', ...UNMATCHED });
    expect(checkMapping(nonNull(result), header)).toEqual([]);
  });

  it('maps a field\'s own name, in any case and separator, as exact_name with confidence 1', () => {
    for (const name of ['debt_currency', 'Debt Currency', 'DEBT-CURRENCY', 'debt.currency']) {
      expect(alone(name, 'debt_currency')).toEqual({
        sourceColumn: name, targetField: 'debt_currency', confidence: 1, reason: `exact name: "${name}" is the name of debt_currency`, reasonCode: 'exact_name',
      });
    }
    expect(alone('Phone 2', 'phone_2')).toMatchObject({ targetField: 'phone_2', reasonCode: 'exact_name', confidence: 1 });
  });

  it('ignores case, accents, separators and filler words in Spanish names', () => {
    const cases: [string, ImportField][] = [
      ['TELÉFONO', 'phone_1'], ['Telefono', 'phone_1'], ['teléfono', 'phone_1'], ['MOVIL', 'phone_1'], ['Móvil', 'phone_1'],
      ['tipo_de_documento', 'identity_document_type'], ['TIPO DOCUMENTO', 'identity_document_type'], ['Tipo-Doc', 'identity_document_type'],
      ['Número de documento', 'identity_document_number'], ['numero_documento', 'identity_document_number'], ['dni', 'identity_document_number'],
      ['Nº factura', 'debt_external_id'], ['N° factura', 'debt_external_id'], ['Núm. factura', 'debt_external_id'], ['NUMERO DE FACTURA', 'debt_external_id'],
      ['Correo Electronico', 'email_1'], ['E-MAIL', 'email_1'], ['código_postal', 'address_postal_code'], ['POBLACION', 'address_city'],
      ['  País  ', 'address_country'], ['fecha_de_vencimiento', 'debt_due_date'], ['Fecha Emision', 'debt_issue_date'], ['metodo pago', 'payment_method'],
    ];
    for (const [name, field] of cases) {
      expect([name, alone(name, field).targetField, alone(name, field).reasonCode]).toEqual([name, field, 'synonym']);
    }
    expect(alone('TELÉFONO', 'phone_1').reason).toBe('synonym: "TELÉFONO" is a known name of phone_1');
  });

  it('recognises every name of MAPPING_SYNONYMS as its field (no name is listed for two fields)', () => {
    for (const [field, names] of Object.entries(MAPPING_SYNONYMS) as [ImportField, readonly string[]][]) {
      for (const name of names) expect([name, alone(name, field).targetField, alone(name, field).reasonCode]).toEqual([name, field, 'synonym']);
    }
  });

  it('suggests for a realistic Spanish file a mapping that passes checkMapping', () => {
    const header = [
      'Código cliente', 'Nombre', 'Apellidos', 'Tipo de documento', 'DNI', 'TELÉFONO', 'Móvil', 'Teléfono fijo', 'Correo electrónico', 'Dirección',
      'Población', 'Provincia', 'CP', 'País', 'Nº factura', 'Importe', 'Pagado', 'Moneda', 'Fecha de vencimiento', 'Concepto', 'Observaciones',
    ];
    const sampleRows = [
      ['C-001', 'Ana', 'García López', 'DNI', '12345678Z', '+34 600 11 22 33', '+34611223344', '+34911223344', 'ana@example.com', 'Calle Mayor 1',
        'Madrid', 'Madrid', '28001', 'ES', 'F-2024-001', '1250.00', '0', 'EUR', '2024-06-30', 'Préstamo', ''],
      ['C-002', 'Luis', 'Pérez', 'NIE', 'X1234567L', ' +34 622 33 44 55 ', '', '', '', 'Av. Diagonal 2', 'Barcelona', 'Barcelona', '08001', 'ES',
        'F-2024-002', '300.5', '100', 'EUR', '2024-07-31', 'Tarjeta', 'llamar tarde'],
    ];
    const result = suggestMapping({ header, sampleRows });
    expect(fields(result)).toEqual([
      'debtor_external_id', 'identity_first_name', 'identity_last_name', 'identity_document_type', 'identity_document_number', 'phone_1', 'phone_2',
      'phone_3', 'email_1', 'address_street', 'address_city', 'address_state', 'address_postal_code', 'address_country', 'debt_external_id',
      'debt_total_amount', 'debt_paid_amount', 'debt_currency', 'debt_due_date', 'debt_description', null,
    ]);
    expect(result.every((s) => s.targetField === null || s.reasonCode === 'synonym')).toBe(true);
    expect(checkMapping(nonNull(result), header)).toEqual([]);
  });

  describe('value patterns (columns no name matched)', () => {
    const header = ['Nombre', 'Tipo de documento', 'DNI', 'Referencia', 'Importe', 'col7', 'col8', 'col9', 'col10', 'col11', 'col12', 'col13', 'col14'];
    const sampleRows = [
      // col7 E.164, col8 currency, col9/col10 dates, col11 email, col12 country, col13 amount, col14 mixed
      ['Ana', 'DNI', '1Z', 'D1', '10', ' +34 600 11 22 33 ', 'EUR', '2024-06-30', '2024-01-15T10:00:00Z', 'ana@example.com', 'ES', '100.50', '+34600112233'],
      ['Luis', 'DNI', '2Z', 'D2', '20', '', 'USD', '2024-07-31', '2024-02-01', ' luis@example.org', 'FR', '20', 'nadie'],
      ['Eva', 'DNI', '3Z', 'D3', '30', '+12025550123', 'EUR', '2024-08-31', '2024-03-01', 'eva@example.net', 'PT', '3', ''],
    ];
    const result = suggestMapping({ header, sampleRows });

    it('recognises phones, currencies, dates, emails and countries, but not amounts or mixed values', () => {
      expect(fields(result)).toEqual([
        'identity_first_name', 'identity_document_type', 'identity_document_number', 'debt_external_id', 'debt_total_amount',
        'phone_1', 'debt_currency', 'debt_due_date', 'debt_issue_date', 'email_1', 'address_country', null, null,
      ]);
      expect(result.slice(5, 11).every((s) => s.reasonCode === 'value_pattern')).toBe(true);
      expect(byColumn(result, 'col13')).toEqual({ sourceColumn: 'col13', ...UNMATCHED });
      expect(byColumn(result, 'col14')).toEqual({ sourceColumn: 'col14', ...UNMATCHED });
      expect(checkMapping(nonNull(result), header)).toEqual([]);
    });

    it('grows the confidence with the number of non-empty matching values, from 0.6 to 0.8', () => {
      expect(byColumn(result, 'col7')).toEqual({
        sourceColumn: 'col7', targetField: 'phone_1', confidence: 0.65,
        reason: 'value pattern: every non-empty sample value of "col7" (2) is an E.164 phone number', reasonCode: 'value_pattern',
      });
      expect(byColumn(result, 'col8').confidence).toBe(0.7);
      const one = suggestMapping({ header: ['x'], sampleRows: [['ana@example.com']] })[0];
      const many = suggestMapping({ header: ['x'], sampleRows: Array.from({ length: 10 }, (_, i) => [`u${i}@example.com`]) })[0];
      expect([one.targetField, one.confidence, many.targetField, many.confidence]).toEqual(['email_1', 0.6, 'email_1', 0.8]);
    });

    it('needs at least one non-empty value, and every one to match', () => {
      const suggest = (cells: string[]) => suggestMapping({ header: ['x'], sampleRows: cells.map((c) => [c]) })[0].targetField;
      expect(suggest([])).toBeNull();
      expect(suggest(['', '  '])).toBeNull();
      expect(suggest(['600112233'])).toBeNull(); // no +: not E.164
      expect(suggest(['+34600112233', '600112233'])).toBeNull();
      expect(suggest(['ABC'])).toBeNull(); // the shape of a currency, but no ISO 4217 code
      expect(suggest(['eur'])).toBeNull();
      expect(suggest(['2023-02-29'])).toBeNull(); // not a real day
      expect(suggest(['ES', 'es'])).toBeNull();
      expect(suggest(['ES', '', 'DE'])).toBe('address_country');
    });

    it('gives a second email column email_2 and a third date column nothing', () => {
      const r = suggestMapping({
        header: ['a', 'b', 'c', 'd', 'e', 'Referencia', 'Importe', 'Moneda'],
        sampleRows: [['x@example.com', 'y@example.com', '2024-01-01', '2024-01-02', '2024-01-03', 'D1', '1', 'EUR']],
      });
      expect(fields(r)).toEqual(['email_1', 'email_2', 'debt_due_date', 'debt_issue_date', null, 'debt_external_id', 'debt_total_amount', 'debt_currency']);
      expect(r[4].reason).toBe(
        'value pattern: every non-empty sample value of "e" (1) is an ISO 8601 date or date-time; debt_due_date is suggested for "c"; debt_issue_date is suggested for "d"',
      );
    });

    it('does not map a column without a name, even when its values match', () => {
      const r = suggestMapping({ header: ['', 'col2'], sampleRows: [['+34600112233', '+34600112234']] });
      expect(r[0]).toEqual({
        sourceColumn: '', targetField: null, confidence: 0, reasonCode: null,
        reason: 'the column has no name: a mapping cannot name it (and the importer refuses a header with an unnamed column)',
      });
      expect(r[1]).toMatchObject({ targetField: 'phone_1', reasonCode: 'value_pattern' });
    });
  });

  describe('previous import', () => {
    it('wins over a synonym and an unrelated value pattern', () => {
      const r = suggestMapping({
        header: ['Nombre', 'Tel', 'Apellidos'],
        sampleRows: [['Ana', '+34600112233', 'García']],
        previousMapping: [
          { sourceColumn: 'Nombre', targetField: 'contact_name' },
          { sourceColumn: 'Tel', targetField: 'phone_2' },
          { sourceColumn: 'Apellidos', targetField: null },
        ],
      });
      expect(r[0]).toEqual({
        sourceColumn: 'Nombre', targetField: 'contact_name', confidence: 0.95, reason: 'previous import: "Nombre" was mapped to contact_name', reasonCode: 'previous_import',
      });
      expect(r[1]).toMatchObject({ targetField: 'phone_2', reasonCode: 'previous_import' });
      // A column the previous import discarded (null) is suggested afresh.
      expect(r[2]).toMatchObject({ targetField: 'identity_last_name', reasonCode: 'synonym' });
    });

    it('matches the column name exactly and ignores fields that no longer exist', () => {
      const r = suggestMapping({
        header: ['Nombre', 'Importe'],
        sampleRows: [],
        previousMapping: [
          { sourceColumn: 'nombre', targetField: 'contact_name' },
          { sourceColumn: 'Importe', targetField: 'debt_amount' as ImportField },
        ],
      });
      expect(r.map((s) => [s.targetField, s.reasonCode])).toEqual([['identity_first_name', 'synonym'], [null, null]]);
    });
  });

  describe('conflicts', () => {
    it('gives phone-like columns phone_1, phone_2, phone_3 in order, and a fourth nothing', () => {
      const r = suggestMapping({ header: ['Teléfono', 'Móvil', 'Telefono fijo', 'Tel'], sampleRows: [] });
      expect(fields(r)).toEqual(['phone_1', 'phone_2', 'phone_3', null]);
      expect(r[1]).toEqual({
        sourceColumn: 'Móvil', targetField: 'phone_2', confidence: 0.9, reasonCode: 'synonym',
        reason: 'synonym: "Móvil" is a known name of phone_1; phone_1 is suggested for "Teléfono"',
      });
      expect(r[3]).toEqual({
        sourceColumn: 'Tel', targetField: null, confidence: 0, reasonCode: null,
        reason: 'synonym: "Tel" is a known name of phone_1; phone_1 is suggested for "Teléfono"; phone_2 is suggested for "Móvil"; phone_3 is suggested for "Telefono fijo"',
      });
    });

    it('keeps a numbered synonym on its number when it is free', () => {
      expect(fields(suggestMapping({ header: ['Teléfono 2', 'Teléfono'], sampleRows: [] }))).toEqual(['phone_2', 'phone_1']);
    });

    it('gives a named phone column priority over a phone recognised by value', () => {
      const r = suggestMapping({ header: ['col1', 'Móvil'], sampleRows: [['+34600112233', '+34600112234']] });
      expect(fields(r)).toEqual(['phone_2', 'phone_1']);
      expect(r[0].reason).toBe('value pattern: every non-empty sample value of "col1" (1) is an E.164 phone number; phone_1 is suggested for "Móvil"');
    });

    it('leaves the second of two "Importe" columns unmapped', () => {
      const r = suggestMapping({ header: ['Referencia', 'Importe', 'Importe total', 'Moneda'], sampleRows: [] });
      expect(fields(r)).toEqual(['debt_external_id', 'debt_total_amount', null, 'debt_currency']);
      expect(r[2]).toEqual({
        sourceColumn: 'Importe total', targetField: null, confidence: 0, reasonCode: null,
        reason: 'synonym: "Importe total" is a known name of debt_total_amount; debt_total_amount is suggested for "Importe"',
      });
    });

    it('prefers the higher confidence over the earlier column', () => {
      const r = suggestMapping({ header: ['Referencia', 'Importe', 'debt_total_amount', 'Moneda'], sampleRows: [] });
      expect(fields(r)).toEqual(['debt_external_id', null, 'debt_total_amount', 'debt_currency']);
      expect(r[1].reason).toBe('synonym: "Importe" is a known name of debt_total_amount; debt_total_amount is suggested for "debt_total_amount"');
    });

    it('maps only the first of two columns with the same name (the importer refuses such a header)', () => {
      const r = suggestMapping({ header: ['Referencia', 'Importe', 'Importe', 'Moneda'], sampleRows: [] });
      expect(fields(r)).toEqual(['debt_external_id', 'debt_total_amount', null, 'debt_currency']);
      expect(r[2].reason).toBe('the header names "Importe" twice: only one column of a name can be mapped (and the importer refuses such a header)');
      expect(checkMapping(nonNull(r), ['Referencia', 'Importe', 'Importe', 'Moneda']).filter((i) => i.path !== 'columnMapping')).toEqual([]);
    });
  });

  describe('incomplete groups', () => {
    it('leaves out every debt field when a required debt field has no column', () => {
      const header = ['Nombre', 'Tipo doc', 'DNI', 'Importe', 'Vencimiento', 'Moneda'];
      const r = suggestMapping({ header, sampleRows: [] });
      expect(fields(r)).toEqual(['identity_first_name', 'identity_document_type', 'identity_document_number', null, null, null]);
      expect(r[3]).toEqual({
        sourceColumn: 'Importe', targetField: null, confidence: 0, reasonCode: null,
        reason: 'synonym: "Importe" is a known name of debt_total_amount; a debt needs debt_external_id, debt_total_amount, debt_currency: no column is suggested for debt_external_id',
      });
      expect(checkMapping(nonNull(r), header)).toEqual([]);
    });

    it('leaves out a date recognised by value when the file has no debt', () => {
      const r = suggestMapping({ header: ['Nombre', 'alta'], sampleRows: [['Ana', '2024-01-01']] });
      expect(r[1]).toMatchObject({ targetField: null, reasonCode: null });
      expect(r[1].reason).toContain('no column is suggested for debt_external_id, debt_total_amount, debt_currency');
    });

    it('leaves out every payment field when a required payment field has no column, and keeps the debt', () => {
      const header = ['Referencia', 'Importe', 'Moneda', 'Fecha de pago', 'Importe pago', 'Forma de pago'];
      const r = suggestMapping({ header, sampleRows: [] });
      expect(fields(r)).toEqual(['debt_external_id', 'debt_total_amount', 'debt_currency', null, null, null]);
      expect(r[3].reason).toBe(
        'synonym: "Fecha de pago" is a known name of payment_date; a payment needs payment_external_id, payment_amount, payment_date: no column is suggested for payment_external_id',
      );
      expect(checkMapping(nonNull(r), header).map((i) => i.message)).toEqual([
        expect.stringContaining('every row needs identity_first_name, identity_document_type, identity_document_number'),
      ]);
    });

    it('keeps a complete payment group', () => {
      const r = suggestMapping({ header: ['ID pago', 'Importe pago', 'Fecha pago', 'Método de pago', 'Referencia pago'], sampleRows: [] });
      expect(fields(r)).toEqual(['payment_external_id', 'payment_amount', 'payment_date', 'payment_method', 'payment_reference']);
    });
  });
});
