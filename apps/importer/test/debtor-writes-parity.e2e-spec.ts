import { csvLine, fixtureId, identityMapping, withDatabase } from '@dc/testing';
import fc from 'fast-check';
import { ImportStack, newPortfolio, startImportStack } from './import-kit';

/**
 * One home for the debtor write rules (docs/adr/0046): the same debtors sent once through the debtor
 * batch and once through a CSV load, each into its own portfolio, are stored alike — debtors, debts
 * and their statuses, phones, emails, the opt-out's note, timeline entry and cancelled messages —
 * first when created, then when a second round overwrites them (batch again, load in mode update).
 * Ids and timestamps differ by nature; so do the provenance fields that name the path (a phone's
 * origin, the opt-out note's text and its timeline entry's data), which are checked apart.
 *
 * What a CSV cannot say is left out of the generated debtors: a phone's type and owner, an email's
 * type, an empty list (a load cannot clear emails), and primary anywhere but first (a row's first
 * phone and email are primary).
 */

const DOCUMENT_TYPE = 'national_id';
/** Each debt key's currency, the same in both rounds (another currency refuses the item or row, differently). */
const CURRENCY = ['EUR', 'USD', 'EUR', 'GBP'] as const;

interface DebtSpec {
  key: number;
  totalCents: number;
  paid: 'absent' | 'zero' | 'full' | 'part';
  partPercent: number;
  due?: string;
  issue?: string;
  description?: string;
  debtType?: string;
}

interface DebtorSpec {
  firstName: string;
  lastName?: string;
  entityType?: string;
  contactName?: string;
  street?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  country?: string;
  optOut?: boolean;
  consentToCall?: boolean;
  consentToWhatsapp?: boolean;
  consentToEmail?: boolean;
  consentToSms?: boolean;
  /** Indexes into the debtor's four numbers, and whether each is written with spaces. */
  phones?: { n: number; spaced: boolean }[];
  /** Indexes into the debtor's four addresses. */
  emails?: number[];
  debts: DebtSpec[];
}

interface Scenario {
  first: DebtorSpec[];
  /** The second round: the same debtors (by position), and possibly new ones after them. */
  second: DebtorSpec[];
  /** Debts of this key are cancelled by an operator between the rounds (no snapshot undoes it). */
  cancelKey: number;
}

const text = fc.stringMatching(/^[A-Za-zñéü][A-Za-zñéü ,'"-]{0,10}[A-Za-z]$/);
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const day = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2031-12-31T00:00:00Z'), noInvalidDate: true });
const date = fc.tuple(day, fc.boolean()).map(([d, withTime]) => (withTime ? `${d.toISOString().slice(0, 16)}:00Z` : d.toISOString().slice(0, 10)));

const debtSpec = fc.record({
  key: fc.integer({ min: 0, max: 3 }),
  totalCents: fc.integer({ min: 1, max: 99_999_999 }),
  paid: fc.constantFrom('absent', 'zero', 'full', 'part'),
  partPercent: fc.integer({ min: 0, max: 100 }),
  due: opt(date),
  issue: opt(date),
  description: opt(text),
  debtType: opt(fc.constantFrom('loan', 'card', 'utility')),
}, { requiredKeys: ['key', 'totalCents', 'paid', 'partPercent'] }) as fc.Arbitrary<DebtSpec>;

const debtorSpec: fc.Arbitrary<DebtorSpec> = fc.record({
  firstName: text,
  lastName: opt(text),
  entityType: opt(fc.constantFrom('individual', 'company')),
  contactName: opt(text),
  street: opt(text),
  city: opt(text),
  state: opt(text),
  postalCode: opt(fc.stringMatching(/^[0-9]{5}$/)),
  country: opt(fc.constantFrom('ES', 'PT', 'FR')),
  optOut: opt(fc.boolean()),
  consentToCall: opt(fc.boolean()),
  consentToWhatsapp: opt(fc.boolean()),
  consentToEmail: opt(fc.boolean()),
  consentToSms: opt(fc.boolean()),
  phones: opt(fc.uniqueArray(fc.record({ n: fc.integer({ min: 0, max: 3 }), spaced: fc.boolean() }), { minLength: 1, maxLength: 3, selector: (p) => p.n })),
  emails: opt(fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 2 })),
  debts: fc.uniqueArray(debtSpec, { maxLength: 3, selector: (d) => d.key }),
}, { requiredKeys: ['firstName', 'debts'] }) as fc.Arbitrary<DebtorSpec>;

const scenario: fc.Arbitrary<Scenario> = fc
  .array(debtorSpec, { minLength: 1, maxLength: 5 })
  .chain((first) =>
    fc.record({
      first: fc.constant(first),
      second: fc.array(debtorSpec, { minLength: first.length, maxLength: first.length + 1 }),
      cancelKey: fc.integer({ min: 0, max: 3 }),
    }),
  );

/** A debtor's external id, document, numbers and addresses: fixed by its position, so both rounds and both paths name the same debtor. */
const externalId = (i: number) => `c${i}`;
const phone = (i: number, p: { n: number; spaced: boolean }) => (p.spaced ? `+34 61${i} 00${p.n} 111` : `+3461${i}00${p.n}111`);
const email = (i: number, n: number) => `p${i}.${n}@example.com`;
const debtExternalId = (i: number, key: number) => `c${i}-d${key}`;

function amounts(d: DebtSpec): { total: number; paid: number | undefined } {
  const paidCents = { absent: 0, zero: 0, full: d.totalCents, part: Math.floor((d.totalCents * d.partPercent) / 100) }[d.paid];
  return { total: d.totalCents / 100, paid: d.paid === 'absent' ? undefined : paidCents / 100 };
}

/** The batch's item for a debtor. */
function batchItem(i: number, s: DebtorSpec): Record<string, unknown> {
  const item: Record<string, unknown> = {
    externalId: externalId(i),
    identityFirstName: s.firstName,
    identityDocumentType: DOCUMENT_TYPE,
    identityDocumentNumber: `DOC-${i}`,
    identityLastName: s.lastName,
    identityEntityType: s.entityType,
    contactInfoContactName: s.contactName,
    contactInfoAddressStreet: s.street,
    contactInfoAddressCity: s.city,
    contactInfoAddressState: s.state,
    contactInfoAddressPostalCode: s.postalCode,
    contactInfoAddressCountry: s.country,
    complianceOptOut: s.optOut,
    complianceConsentToCall: s.consentToCall,
    complianceConsentToWhatsapp: s.consentToWhatsapp,
    complianceConsentToEmail: s.consentToEmail,
    complianceConsentToSms: s.consentToSms,
    contactInfoPhoneNumbers: s.phones?.map((p, k) => ({ phone: phone(i, p), ...(k === 0 ? { primary: true } : {}) })),
    contactInfoEmails: s.emails?.map((n, k) => ({ address: email(i, n), ...(k === 0 ? { primary: true } : {}) })),
    debts: s.debts.map((d) => {
      const { total, paid } = amounts(d);
      return {
        externalId: debtExternalId(i, d.key),
        totalAmount: total,
        paidAmount: paid,
        currency: CURRENCY[d.key],
        dueDate: d.due,
        issueDate: d.issue,
        description: d.description,
        debtType: d.debtType,
      };
    }),
  };
  return JSON.parse(JSON.stringify(item)) as Record<string, unknown>; // absent fields left out
}

const HEADER = [
  'debtor_external_id', 'identity_first_name', 'identity_last_name', 'identity_document_type', 'identity_document_number', 'identity_entity_type',
  'contact_name', 'phone_1', 'phone_2', 'phone_3', 'email_1', 'email_2', 'address_street', 'address_city', 'address_state',
  'address_postal_code', 'address_country', 'compliance_opt_out', 'compliance_consent_to_call', 'compliance_consent_to_whatsapp',
  'compliance_consent_to_email', 'compliance_consent_to_sms', 'debt_external_id', 'debt_total_amount', 'debt_paid_amount', 'debt_currency',
  'debt_due_date', 'debt_issue_date', 'debt_description', 'debt_type',
];

/** The same debtors as a load file: a row per debt (the debtor's cells repeated), or one debtor-only row. */
function csv(debtors: DebtorSpec[]): string {
  const cell = (v: string | number | boolean | undefined) => (v === undefined ? '' : String(v));
  const lines = [csvLine(HEADER)];
  debtors.forEach((s, i) => {
    const phones = s.phones?.map((p) => phone(i, p)) ?? [];
    const emails = s.emails?.map((n) => email(i, n)) ?? [];
    const debtor = [
      externalId(i), s.firstName, s.lastName, DOCUMENT_TYPE, `DOC-${i}`, s.entityType, s.contactName, phones[0], phones[1], phones[2], emails[0],
      emails[1], s.street, s.city, s.state, s.postalCode, s.country, s.optOut, s.consentToCall, s.consentToWhatsapp, s.consentToEmail, s.consentToSms,
    ].map(cell);
    const debts = s.debts.map((d) => {
      const { total, paid } = amounts(d);
      return [debtExternalId(i, d.key), total, paid, CURRENCY[d.key], d.due, d.issue, d.description, d.debtType].map(cell);
    });
    for (const debt of debts.length ? debts : [Array<string>(8).fill('')]) lines.push(csvLine([...debtor, ...debt]));
  });
  return `${lines.join('\n')}\n`;
}

/** What a portfolio stores of its debtors, keyed by external ids, without ids, timestamps or provenance. */
async function stored(url: string, portfolioId: string) {
  return withDatabase(url, async (c) => {
    const q = async (sql: string) => (await c.query(sql, [portfolioId])).rows;
    const of = `JOIN debtors d ON d.id = x.debtor_id WHERE d.portfolio_id = $1`;
    return {
      debtors: await q(`
        SELECT external_id, status, priority, identity_first_name, identity_last_name, identity_document_type, identity_document_number,
          identity_entity_type, contact_info_contact_name, contact_info_address_street, contact_info_address_city, contact_info_address_state,
          contact_info_address_postal_code, contact_info_address_country, compliance_opt_out, compliance_consent_to_call,
          compliance_consent_to_whatsapp, compliance_consent_to_email, compliance_consent_to_sms, deleted_at IS NOT NULL AS deleted
        FROM debtors WHERE portfolio_id = $1 ORDER BY external_id`),
      debts: await q(`
        SELECT d.external_id AS debtor, x.external_id, x.total_amount::text AS total, x.paid_amount::text AS paid, x.currency, x.status,
          x.due_date, x.issue_date, x.description, x.debt_type, x.deleted_at IS NOT NULL AS deleted
        FROM debts x ${of} ORDER BY 1, 2`),
      phones: await q(`
        SELECT d.external_id AS debtor, x.phone, x.phone_e164, x.position, x."primary", x.type, x.owner, x.owner_source,
          x.verification_status, x.verified
        FROM debtor_phones x ${of} ORDER BY 1, x.position`),
      emails: await q(`
        SELECT d.external_id AS debtor, x.address, x.position, x."primary", x.type, x.verification_status, x.verified
        FROM debtor_emails x ${of} ORDER BY 1, x.position`),
      notes: await q(`SELECT d.external_id AS debtor, x.kind FROM debtor_notes x ${of} ORDER BY 1, 2`),
      timeline: await q(`SELECT d.external_id AS debtor, x.kind FROM debtor_timeline_events x ${of} ORDER BY 1, 2`),
      messages: await q(`
        SELECT d.external_id AS debtor, x.channel, x.status, x.cancel_reason, x.cancelled_at IS NOT NULL AS cancelled
        FROM debtor_pending_messages x ${of} ORDER BY 1, 2`),
      /** Provenance: how each path names itself. */
      origins: (await q(`SELECT DISTINCT x.origin FROM debtor_phones x ${of}`)).map((r) => r.origin as string),
      sources: (await q(`SELECT DISTINCT x.data->>'source' AS source FROM debtor_timeline_events x ${of}`)).map((r) => r.source as string),
    };
  });
}

describe('debtor write rules: a batch and a CSV load store the same debtors alike (docs/adr/0046)', () => {
  let s: ImportStack;

  beforeAll(async () => {
    s = await startImportStack();
  }, 60_000);
  afterAll(() => s?.stack.stop());

  async function batch(portfolioId: string, debtors: DebtorSpec[]): Promise<void> {
    const res = await fetch(`${s.stack.publicUrl}/public/v1/portfolios/${portfolioId}/debtors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.tenant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ debtors: debtors.map((d, i) => batchItem(i, d)) }),
    });
    const body = (await res.json()) as { data?: { summary?: { rejected: number }; results?: { status: string }[] } };
    expect([res.status, body.data?.summary?.rejected, body.data?.results?.filter((r) => r.status === 'rejected')]).toEqual([200, 0, []]);
  }

  async function load(portfolioId: string, debtors: DebtorSpec[], mode: 'add' | 'update'): Promise<void> {
    const done = await s.client.load(portfolioId, csv(debtors), identityMapping(HEADER), mode);
    expect([done.status, done.errors, done.errorDetails]).toEqual(['completed', 0, []]);
  }

  /** What an operator and the messaging side do between the rounds, the same in both portfolios. */
  async function between(portfolioId: string, cancelKey: number): Promise<void> {
    await withDatabase(s.stack.databaseUrl, async (c) => {
      await c.query(`UPDATE debts SET status = 'cancelled' WHERE portfolio_id = $1 AND external_id LIKE $2`, [portfolioId, `%-d${cancelKey}`]);
      const debtors = (await c.query('SELECT id FROM debtors WHERE portfolio_id = $1', [portfolioId])).rows.map((r) => r.id as string);
      for (const id of debtors) {
        await c.query(`INSERT INTO debtor_pending_messages (id, debtor_id, channel, status, scheduled_at) VALUES ($1, $2, 'sms', 'pending', now())`, [fixtureId('dpm'), id]);
      }
    });
  }

  it('creates, then overwrites, the same rows through either path', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ first, second, cancelKey }) => {
        const [viaBatch, viaLoad] = await Promise.all([newPortfolio(s.operator, s.tenant.organizationId), newPortfolio(s.operator, s.tenant.organizationId)]);

        await Promise.all([batch(viaBatch, first), load(viaLoad, first, 'add')]);
        const [createdByBatch, createdByLoad] = await Promise.all([stored(s.stack.databaseUrl, viaBatch), stored(s.stack.databaseUrl, viaLoad)]);
        const { origins: batchOrigins, sources: batchSources, ...batchRows } = createdByBatch;
        const { origins: loadOrigins, sources: loadSources, ...loadRows } = createdByLoad;
        expect(loadRows).toEqual(batchRows);
        expect(batchRows.debtors).toHaveLength(first.length);

        await Promise.all([between(viaBatch, cancelKey), between(viaLoad, cancelKey)]);
        await Promise.all([batch(viaBatch, second), load(viaLoad, second, 'update')]);
        const [updatedByBatch, updatedByLoad] = await Promise.all([stored(s.stack.databaseUrl, viaBatch), stored(s.stack.databaseUrl, viaLoad)]);
        const { origins: batchOrigins2, sources: batchSources2, ...batchRows2 } = updatedByBatch;
        const { origins: loadOrigins2, sources: loadSources2, ...loadRows2 } = updatedByLoad;
        expect(loadRows2).toEqual(batchRows2);
        expect(batchRows2.debtors).toHaveLength(second.length);

        // Provenance, the one thing that differs: each path names itself.
        for (const o of [...batchOrigins, ...batchOrigins2]) expect(o).toBe('api');
        for (const o of [...loadOrigins, ...loadOrigins2]) expect(o).toBe('import');
        for (const source of [...batchSources, ...batchSources2]) expect(source).toBe('debtor_batch');
        for (const source of [...loadSources, ...loadSources2]) expect(source).toBe('import');
      }),
      // Each run is two batches and two loads on real services: few runs, and no shrinking (a
      // failure is reported with its seed and counterexample, and replays with them).
      { numRuns: 15, endOnFailure: true },
    );
  }, 120_000);
});
