import { IMPORT_FIELDS, ImportField } from '@dc/contracts';
import { FieldColumns } from './column-mapping';
import { ImportRow, RowCheck, RowIssue, RowMessages, RowRules } from './row-rules';
import { neutraliseCell } from './spreadsheet-safety';

/** Every canonical field mapped, in IMPORT_FIELDS order: a record is one cell per field. */
const ALL: FieldColumns = Object.fromEntries(IMPORT_FIELDS.map((f, i) => [f, i]));
const rules = new RowRules(ALL, IMPORT_FIELDS.length);

const BASE: Partial<Record<ImportField, string>> = {
  identity_first_name: 'Ana',
  identity_document_type: 'national_id',
  identity_document_number: '12345678Z',
};
const DEBT: Partial<Record<ImportField, string>> = { debt_external_id: 'D1', debt_total_amount: '100', debt_currency: 'EUR' };

function record(cells: Partial<Record<ImportField, string>>): string[] {
  return IMPORT_FIELDS.map((f) => cells[f] ?? '');
}
function check(cells: Partial<Record<ImportField, string>>): RowCheck {
  return rules.check(record({ ...BASE, ...cells }));
}
function row(cells: Partial<Record<ImportField, string>>): ImportRow {
  const result = check(cells);
  if (!result.ok) throw new Error(`expected a valid row, got ${JSON.stringify(result.issues)}`);
  return result.row;
}
function issues(cells: Partial<Record<ImportField, string>>): RowIssue[] {
  const result = check(cells);
  if (result.ok) throw new Error('expected issues');
  return result.issues;
}

describe('RowRules', () => {
  it('a minimal row: the three identity fields; every other field absent, no debt', () => {
    expect(row({})).toEqual({
      debtorExternalId: null,
      firstName: 'Ana',
      lastName: null,
      documentType: 'national_id',
      documentNumber: '12345678Z',
      entityType: null,
      contactName: null,
      street: null,
      city: null,
      state: null,
      postalCode: null,
      country: null,
      phones: [],
      emails: [],
      optOut: null,
      consentToCall: null,
      consentToWhatsapp: null,
      consentToEmail: null,
      consentToSms: null,
      debt: null,
      payment: null,
    });
  });

  it('a full row in canonical form: cells trimmed, phones normalised, amounts as numeric text', () => {
    expect(
      row({
        debtor_external_id: ' C-1 ',
        identity_last_name: 'López',
        identity_entity_type: 'person',
        contact_name: 'Ana L.',
        phone_1: '+34 600 11 22 33',
        phone_3: '+34 (600) 44-55-66',
        email_1: 'ana@example.com',
        email_2: 'a.lopez@example.org',
        address_street: 'Calle Mayor 1',
        address_city: 'Madrid',
        address_state: 'Madrid',
        address_postal_code: '28001',
        address_country: 'ES',
        compliance_opt_out: 'No',
        compliance_consent_to_call: 'YES',
        compliance_consent_to_whatsapp: '1',
        compliance_consent_to_email: 'false',
        compliance_consent_to_sms: '0',
        debt_external_id: 'D-1',
        debt_total_amount: '1250.50',
        debt_paid_amount: '0050.25',
        debt_currency: 'EUR',
        debt_due_date: '2026-01-31',
        debt_issue_date: '2025-12-01T10:00:00Z',
        debt_description: 'Invoice 7',
        debt_type: 'loan',
        payment_external_id: ' P-1 ',
        payment_amount: '25.5',
        payment_date: '2026-02-03',
        payment_method: 'card',
        payment_reference: 'voucher 9',
      }),
    ).toEqual({
      debtorExternalId: 'C-1',
      firstName: 'Ana',
      lastName: 'López',
      documentType: 'national_id',
      documentNumber: '12345678Z',
      entityType: 'person',
      contactName: 'Ana L.',
      street: 'Calle Mayor 1',
      city: 'Madrid',
      state: 'Madrid',
      postalCode: '28001',
      country: 'ES',
      phones: [
        { phone: '+34 600 11 22 33', e164: '+34600112233' },
        { phone: '+34 (600) 44-55-66', e164: '+34600445566' },
      ],
      emails: ['ana@example.com', 'a.lopez@example.org'],
      optOut: false,
      consentToCall: true,
      consentToWhatsapp: true,
      consentToEmail: false,
      consentToSms: false,
      debt: {
        externalId: 'D-1',
        totalAmount: '1250.50',
        paidAmount: '50.25',
        currency: 'EUR',
        dueDate: '2026-01-31',
        issueDate: '2025-12-01T10:00:00Z',
        description: 'Invoice 7',
        debtType: 'loan',
      },
      payment: { externalId: 'P-1', amount: '25.5', currency: null, date: '2026-02-03', method: 'card', reference: 'voucher 9' },
    });
  });

  describe('a payment', () => {
    const PAYMENT: Partial<Record<ImportField, string>> = { payment_external_id: 'P1', payment_amount: '10', payment_date: '2026-01-05' };

    it('needs its id, amount and date once any payment cell is filled; the rest is optional', () => {
      expect(row({ ...PAYMENT }).payment).toEqual({ externalId: 'P1', amount: '10', currency: null, date: '2026-01-05', method: null, reference: null });
      expect(issues({ payment_method: 'cash' })).toEqual([
        { field: 'payment_external_id', message: RowMessages.requiredForPayment },
        { field: 'payment_amount', message: RowMessages.requiredForPayment },
        { field: 'payment_date', message: RowMessages.requiredForPayment },
      ]);
    });

    it('follows POST /v1/payments: amount above 0, an ISO 4217 currency, a method of the list', () => {
      expect(issues({ ...PAYMENT, payment_amount: '0' })).toEqual([{ field: 'payment_amount', message: RowMessages.paymentAmount }]);
      expect(issues({ ...PAYMENT, payment_amount: '100000000000' })).toEqual([{ field: 'payment_amount', message: RowMessages.paymentAmount }]);
      expect(issues({ ...PAYMENT, payment_currency: 'eur' })).toEqual([{ field: 'payment_currency', message: RowMessages.currencyPattern }]);
      expect(issues({ ...PAYMENT, payment_currency: 'XYZ' })).toEqual([{ field: 'payment_currency', message: RowMessages.currencyUnknown('XYZ') }]);
      expect(issues({ ...PAYMENT, payment_method: 'bitcoin' })).toEqual([{ field: 'payment_method', message: RowMessages.paymentMethod }]);
      expect(issues({ ...PAYMENT, payment_date: '2026-02-30' })).toEqual([{ field: 'payment_date', message: RowMessages.dateReal }]);
      expect(issues({ ...PAYMENT, payment_external_id: 'x'.repeat(129) })).toEqual([{ field: 'payment_external_id', message: RowMessages.tooLong(128) }]);
      expect(row({ ...PAYMENT, payment_amount: '99999999999.9999', payment_currency: 'USD' }).payment).toMatchObject({ amount: '99999999999.9999', currency: 'USD' });
    });
  });

  it('only mapped columns are read, by their index in the record', () => {
    const narrow = new RowRules({ identity_document_number: 0, identity_first_name: 2, identity_document_type: 3 }, 5);
    const result = narrow.check(['X1', 'ignored', 'Bea', 'passport', '¿?']);
    expect(result).toEqual({ ok: true, row: expect.objectContaining({ firstName: 'Bea', documentType: 'passport', documentNumber: 'X1', phones: [], debt: null }) });
  });

  describe('the record', () => {
    it('a record with another number of fields than the header is refused as a whole', () => {
      expect(rules.check(record(BASE).slice(1))).toEqual({
        ok: false,
        issues: [{ field: null, message: RowMessages.fieldCount(IMPORT_FIELDS.length - 1, IMPORT_FIELDS.length) }],
        debtExternalId: null,
      });
      expect(rules.check([...record(BASE), 'extra'])).toEqual({
        ok: false,
        issues: [{ field: null, message: RowMessages.fieldCount(IMPORT_FIELDS.length + 1, IMPORT_FIELDS.length) }],
        debtExternalId: null,
      });
    });

    it('a cell that was not valid UTF-8 (U+FFFD) is refused, and not also reported as missing', () => {
      expect(issues({ identity_first_name: 'An\uFFFD', address_city: 'M\uFFFDlaga' })).toEqual([
        { field: 'identity_first_name', message: 'is not valid UTF-8 text' },
        { field: 'address_city', message: 'is not valid UTF-8 text' },
      ]);
    });

    it('a cell holding NUL (U+0000), which Postgres cannot store, is refused', () => {
      expect(issues({ identity_first_name: 'A\u0000na', debt_external_id: 'D\u00001', debt_total_amount: '1', debt_currency: 'EUR' })).toEqual([
        { field: 'identity_first_name', message: RowMessages.nul },
        { field: 'debt_external_id', message: RowMessages.nul },
      ]);
    });

    it('a cell neutralised for spreadsheets (the rejected rows file) is read without its apostrophe; any other apostrophe is the value\'s own', () => {
      const plain: Partial<Record<ImportField, string>> = {
        ...DEBT,
        identity_first_name: '=Ana',
        identity_last_name: '@López',
        phone_1: '+34 600 11 22 33',
        debt_description: '-x',
        debt_type: '+loan',
      };
      // A phone is not formula-like: the rejected rows file writes it plain.
      const neutralised: Partial<Record<ImportField, string>> = {
        ...DEBT,
        identity_first_name: "'=Ana",
        identity_last_name: "'@López ",
        phone_1: '+34 600 11 22 33',
        debt_description: "'-x",
        debt_type: "'+loan",
      };
      expect(check(neutralised)).toEqual(check(plain));
      expect(row(neutralised)).toMatchObject({
        firstName: '=Ana',
        lastName: '@López',
        phones: [{ phone: '+34 600 11 22 33', e164: '+34600112233' }],
        debt: expect.objectContaining({ description: '-x', debtType: '+loan' }),
      });
      // Every cell as the rejected rows file writes it.
      expect(rules.check(record({ ...BASE, ...plain }).map(neutraliseCell))).toEqual(check(plain));

      expect(row({ identity_last_name: "'Connor", contact_name: "''=x", address_street: "'-12", debt_description: "'", ...DEBT })).toMatchObject({
        lastName: "'Connor",
        contactName: "'=x",
        street: "'-12",
        debt: expect.objectContaining({ description: "'" }),
      });
    });

    it('every broken rule of a row is reported', () => {
      expect(issues({ identity_first_name: ' ', address_country: 'es', email_1: 'nope', debt_total_amount: '0' })).toEqual([
        { field: 'identity_first_name', message: 'is required' },
        { field: 'address_country', message: 'must be two capital letters (ISO 3166-1 alpha-2)' },
        { field: 'email_1', message: 'must be an email address' },
        { field: 'debt_external_id', message: 'is required when the row has a debt (a debt_* cell is filled)' },
        { field: 'debt_currency', message: 'is required when the row has a debt (a debt_* cell is filled)' },
        { field: 'debt_total_amount', message: 'must be above 0 with at most 4 decimals and 15 integer digits (a dot separates the decimals)' },
      ]);
    });
  });

  describe('identity and contact', () => {
    it.each(['identity_first_name', 'identity_document_type', 'identity_document_number'] as const)('%s is required', (field) => {
      expect(issues({ [field]: '' })).toEqual([{ field, message: 'is required' }]);
    });

    it.each([
      ['debtor_external_id', 128],
      ['identity_first_name', 200],
      ['identity_last_name', 200],
      ['identity_document_type', 50],
      ['identity_document_number', 64],
      ['identity_entity_type', 50],
      ['contact_name', 200],
      ['address_street', 300],
      ['address_city', 100],
      ['address_state', 100],
      ['address_postal_code', 20],
      ['phone_1', 32],
      ['email_1', 254],
      ['debt_external_id', 128],
      ['debt_description', 1000],
      ['debt_type', 50],
    ] as const)('%s: at most %i characters', (field, max) => {
      // An address of exactly 254 characters: isEmail caps each label at 63.
      const email = (n: number) => `a@${['x'.repeat(63), 'x'.repeat(63), 'x'.repeat(63), 'x'.repeat(n)].join('.')}.com`;
      const fit = field.startsWith('email') ? email(56) : field.startsWith('phone') ? '+34600112233' : 'x'.repeat(max);
      expect(check({ ...DEBT, [field]: fit }).ok).toBe(true);
      expect(issues({ ...DEBT, [field]: field.startsWith('email') ? email(57) : 'x'.repeat(max + 1) })).toContainEqual({
        field,
        message: `must be at most ${max} characters`,
      });
    });

    it('address_country: two capital letters', () => {
      for (const bad of ['E', 'ESP', 'es', 'E1']) {
        expect(issues({ address_country: bad })).toEqual([{ field: 'address_country', message: 'must be two capital letters (ISO 3166-1 alpha-2)' }]);
      }
    });

    it('phones: E.164 after stripping spaces, dots, dashes and parentheses; the same number twice is refused', () => {
      expect(issues({ phone_1: '600112233' })).toEqual([
        { field: 'phone_1', message: '"600112233" is not an E.164 number (+, country code, 9 to 15 digits in total)' },
      ]);
      expect(issues({ phone_2: '+0 600 112 233' })).toEqual([
        { field: 'phone_2', message: '"+0 600 112 233" is not an E.164 number (+, country code, 9 to 15 digits in total)' },
      ]);
      expect(issues({ phone_1: '+34600112233', phone_3: '+34 600.11.22.33' })).toEqual([
        { field: 'phone_3', message: '"+34 600.11.22.33" is the same number as phone_1' },
      ]);
    });

    it('a value quoted back in a message is cut to 64 characters', () => {
      const long = `+${'1'.repeat(31)}`;
      expect(issues({ phone_1: long })).toEqual([{ field: 'phone_1', message: `"${long}" is not an E.164 number (+, country code, 9 to 15 digits in total)` }]);
      expect(RowMessages.phone('x'.repeat(70))).toBe(`"${'x'.repeat(64)}…" is not an E.164 number (+, country code, 9 to 15 digits in total)`);
    });

    it('emails: class-validator isEmail', () => {
      expect(row({ email_2: 'b@example.com' }).emails).toEqual(['b@example.com']);
      expect(issues({ email_1: 'a@b', email_2: 'not an email' })).toEqual([
        { field: 'email_1', message: 'must be an email address' },
        { field: 'email_2', message: 'must be an email address' },
      ]);
    });

    it('compliance flags: true/false, yes/no, 1/0 in any case; empty is absent', () => {
      expect(row({ compliance_opt_out: 'TRUE', compliance_consent_to_sms: 'No' })).toMatchObject({ optOut: true, consentToSms: false, consentToCall: null });
      for (const bad of ['si', 'y', '2', 'verdadero']) {
        expect(issues({ compliance_consent_to_call: bad })).toEqual([{ field: 'compliance_consent_to_call', message: 'must be true, false, yes, no, 1 or 0' }]);
      }
    });
  });

  describe('debt', () => {
    it('a row without any debt cell has no debt; paid empty is 0', () => {
      expect(row({}).debt).toBeNull();
      expect(row(DEBT).debt).toEqual({
        externalId: 'D1', totalAmount: '100', paidAmount: '0', currency: 'EUR', dueDate: null, issueDate: null, description: null, debtType: null,
      });
    });

    it('any debt cell makes the row carry a debt: external id, total and currency are then required', () => {
      expect(issues({ debt_description: 'x' })).toEqual([
        { field: 'debt_external_id', message: RowMessages.requiredForDebt },
        { field: 'debt_total_amount', message: RowMessages.requiredForDebt },
        { field: 'debt_currency', message: RowMessages.requiredForDebt },
      ]);
    });

    it('total amount: above 0, at most 4 decimals and 15 integer digits, a dot as separator', () => {
      for (const bad of ['0', '0.0000', '-5', '10.12345', '1e3', '1,5', '1234567890123456', 'abc']) {
        expect(issues({ ...DEBT, debt_total_amount: bad })).toEqual([
          { field: 'debt_total_amount', message: 'must be above 0 with at most 4 decimals and 15 integer digits (a dot separates the decimals)' },
        ]);
      }
      expect(row({ ...DEBT, debt_total_amount: '123456789012345.1234' }).debt?.totalAmount).toBe('123456789012345.1234');
    });

    it('paid amount: 0 or more, and not above the total', () => {
      expect(issues({ ...DEBT, debt_paid_amount: '-1' })).toEqual([
        { field: 'debt_paid_amount', message: 'must be 0 or more with at most 4 decimals and 15 integer digits (a dot separates the decimals)' },
      ]);
      expect(issues({ ...DEBT, debt_paid_amount: '100.0001' })).toEqual([{ field: 'debt_paid_amount', message: '100.0001 is greater than the total amount (100)' }]);
      expect(row({ ...DEBT, debt_paid_amount: '100.0000' }).debt?.paidAmount).toBe('100.0000');
    });

    it('currency: three capital letters, and a real ISO 4217 code', () => {
      expect(issues({ ...DEBT, debt_currency: 'eur' })).toEqual([{ field: 'debt_currency', message: 'must be three capital letters (ISO 4217)' }]);
      expect(issues({ ...DEBT, debt_currency: 'ABC' })).toEqual([{ field: 'debt_currency', message: 'ABC is not an ISO 4217 currency code' }]);
      expect(issues({ ...DEBT, debt_currency: 'XXX' })).toEqual([{ field: 'debt_currency', message: 'XXX is not an ISO 4217 currency code' }]);
    });

    it('dates: the batch pattern, and a real calendar date and time', () => {
      expect(issues({ ...DEBT, debt_due_date: '31/01/2026' })).toEqual([
        { field: 'debt_due_date', message: 'must be a date YYYY-MM-DD, optionally followed by a time THH:MM[:SS[.fff]][Z|±HH:MM]' },
      ]);
      expect(issues({ ...DEBT, debt_issue_date: '2026-02-30' })).toEqual([{ field: 'debt_issue_date', message: 'must be a real calendar date (and time of day)' }]);
      expect(issues({ ...DEBT, debt_due_date: '2026-01-01T25:00' })).toEqual([{ field: 'debt_due_date', message: 'must be a real calendar date (and time of day)' }]);
      expect(row({ ...DEBT, debt_due_date: '2024-02-29', debt_issue_date: '2026-01-01T08:30:00.123+01:00' }).debt).toMatchObject({
        dueDate: '2024-02-29',
        issueDate: '2026-01-01T08:30:00.123+01:00',
      });
    });

    it('a refused row still names its debt external id when that cell is valid (reconcile counts the debt as in the file)', () => {
      expect(check({ ...DEBT, debt_currency: 'ABC' })).toMatchObject({ ok: false, debtExternalId: 'D1' });
      expect(check({ ...DEBT, debt_external_id: 'x'.repeat(129) })).toMatchObject({ ok: false, debtExternalId: null });
    });
  });
});
