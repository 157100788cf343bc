import { legacyErasureHash } from '@dc/contracts';
import { createTenant, fixtureId, rawPost, insertDebt, insertDebtor, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import request from 'supertest';

/** The working route pair the 413 messages send clients to (the portfolio load flow, docs/imports.md). */
const LOAD_FLOW = 'POST /v1/portfolios/{id}/imports/upload-url, upload the file, then POST /v1/portfolios/{id}/imports';

describe('POST /public/v1/portfolios/{id}/debtors (spec: debtor batch)', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let pf: string;
  let seq = 0;
  const uid = (p: string) => `${p}-${Date.now().toString(36)}-${(seq += 1)}`;

  beforeAll(async () => {
    // This file is about the batch's semantics; its rate-limit policy is tested in debtor-batch-policies.
    // Large batches queue behind each other (portfolio lock): room for that on a loaded CI machine.
    stack = await Stack.start({
      env: { RATE_LIMIT_PER_MINUTE: '100000', NATS_REQUEST_TIMEOUT_MS: '30000', DATABASE_STATEMENT_TIMEOUT_MS: '20000', DATABASE_LOCK_TIMEOUT_MS: '20000' },
    });
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 2 });
    pf = tenant.portfolioIds[0];
  });
  afterAll(() => stack?.stop());

  const post = (body: unknown, key = tenant.key, portfolioId = pf) =>
    request(stack.publicUrl).post(`/public/v1/portfolios/${portfolioId}/debtors`).set('Authorization', `Bearer ${key}`).send(body as object);
  const db = <T>(fn: Parameters<typeof withDatabase<T>>[1]) => withDatabase<T>(stack.databaseUrl, fn);
  const q = async (text: string, params: unknown[] = []) => db(async (c) => (await c.query(text, params)).rows);

  const debtor = (externalId: string, extra: Record<string, unknown> = {}) => ({
    externalId,
    identityFirstName: 'Ana',
    identityDocumentType: 'national_id',
    identityDocumentNumber: `DOC-${externalId}`,
    ...extra,
  });
  const debt = (externalId: string, extra: Record<string, unknown> = {}) => ({ externalId, totalAmount: 100, currency: 'EUR', ...extra });

  async function ok(body: unknown) {
    const res = await post(body);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  function expectError(res: request.Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual(expect.objectContaining({ code, message: expect.any(String), requestId: res.headers['x-request-id'] }));
  }

  describe('creation and the response shape', () => {
    it('creates debtors with debts, phones and emails; results in order; summary', async () => {
      const a = uid('a');
      const b = uid('b');
      const data = await ok({
        debtors: [
          debtor(a, {
            identityLastName: 'Pérez',
            contactInfoAddressCountry: 'ES',
            contactInfoPhoneNumbers: [{ phone: '+34 600 11 22 33', primary: true, type: 'mobile' }, { phone: '+34911223344' }],
            contactInfoEmails: [{ address: 'ana@example.com', primary: true }],
            debts: [debt(`${a}-d1`, { paidAmount: 20.5, dueDate: '2026-01-31', issueDate: '2025-12-01T10:00:00Z', description: 'loan', debtType: 'loan' })],
          }),
          debtor(b),
        ],
      });
      expect(data.summary).toEqual({ created: 2, received: 2, rejected: 0, updated: 0 });
      expect(data.results).toEqual([
        { index: 0, externalId: a, status: 'created', id: expect.stringMatching(/^dbt_/), debts: [{ externalId: `${a}-d1`, id: expect.stringMatching(/^debt_/), status: 'created' }] },
        { index: 1, externalId: b, status: 'created', id: expect.stringMatching(/^dbt_/), debts: [] },
      ]);
      const id = data.results[0].id;
      const [row] = await q('SELECT * FROM debtors WHERE id = $1', [id]);
      expect(row).toMatchObject({ portfolio_id: pf, external_id: a, identity_last_name: 'Pérez', contact_info_address_country: 'ES', status: 'active', priority: 0 });
      // Compliance defaults on create.
      expect(row).toMatchObject({ compliance_opt_out: false, compliance_consent_to_call: true, compliance_consent_to_whatsapp: false, compliance_consent_to_email: true, compliance_consent_to_sms: true });
      const phones = await q('SELECT phone, phone_e164, position, "primary", type, owner, owner_source FROM debtor_phones WHERE debtor_id = $1 ORDER BY position', [id]);
      expect(phones).toEqual([
        { phone: '+34 600 11 22 33', phone_e164: '+34600112233', position: 0, primary: true, type: 'mobile', owner: 'unknown', owner_source: 'default' },
        { phone: '+34911223344', phone_e164: '+34911223344', position: 1, primary: false, type: null, owner: 'unknown', owner_source: 'default' },
      ]);
      expect(await q('SELECT address, "primary" FROM debtor_emails WHERE debtor_id = $1', [id])).toEqual([{ address: 'ana@example.com', primary: true }]);
      const [d] = await q('SELECT total_amount::text, paid_amount::text, currency, status, due_date, issue_date, description, debt_type, debtor_id FROM debts WHERE external_id = $1', [`${a}-d1`]);
      expect(d).toEqual({ total_amount: '100.0000', paid_amount: '20.5000', currency: 'EUR', status: 'active', due_date: '2026-01-31', issue_date: '2025-12-01T10:00:00Z', description: 'loan', debt_type: 'loan', debtor_id: id });
    });

    it('the same externalId updates, never duplicates', async () => {
      const a = uid('same');
      const first = await ok({ debtors: [debtor(a)] });
      const second = await ok({ debtors: [debtor(a, { identityFirstName: 'Bea' })] });
      expect(second.results[0]).toMatchObject({ status: 'updated', id: first.results[0].id });
      expect(second.summary).toEqual({ created: 0, received: 1, rejected: 0, updated: 1 });
      expect(await q('SELECT identity_first_name FROM debtors WHERE external_id = $1', [a])).toEqual([{ identity_first_name: 'Bea' }]);
    });
  });

  describe('schema check (400 validation_error, nothing processed)', () => {
    it.each([
      ['empty debtors', { debtors: [] }, 'debtors'],
      ['missing debtors', {}, 'debtors'],
      ['missing required field', { debtors: [{ externalId: 'x', identityDocumentType: 't', identityDocumentNumber: 'n' }] }, 'debtors[0].identityFirstName'],
      ['bad currency pattern', { debtors: [debtor('x', { debts: [debt('d', { currency: 'eur' })] })] }, 'debtors[0].debts[0].currency'],
      ['totalAmount not above 0', { debtors: [debtor('x', { debts: [debt('d', { totalAmount: 0 })] })] }, 'debtors[0].debts[0].totalAmount'],
      ['negative paidAmount', { debtors: [debtor('x', { debts: [debt('d', { paidAmount: -1 })] })] }, 'debtors[0].debts[0].paidAmount'],
      ['bad country', { debtors: [debtor('x', { contactInfoAddressCountry: 'esp' })] }, 'debtors[0].contactInfoAddressCountry'],
      ['bad date', { debtors: [debtor('x', { debts: [debt('d', { dueDate: '31/01/2026' })] })] }, 'debtors[0].debts[0].dueDate'],
      ['bad email', { debtors: [debtor('x', { contactInfoEmails: [{ address: 'not-an-email' }] })] }, 'debtors[0].contactInfoEmails[0].address'],
      ['bad owner', { debtors: [debtor('x', { contactInfoPhoneNumbers: [{ phone: '+34600112233', owner: 'boss' }] })] }, 'debtors[0].contactInfoPhoneNumbers[0].owner'],
      ['non-boolean compliance', { debtors: [debtor('x', { complianceOptOut: 'yes' })] }, 'debtors[0].complianceOptOut'],
      ['externalId over 128', { debtors: [debtor('x'.repeat(129))] }, 'debtors[0].externalId'],
      ['description over 1000', { debtors: [debtor('x', { debts: [debt('d', { description: 'x'.repeat(1001) })] })] }, 'debtors[0].debts[0].description'],
      ['more than 20 debts', { debtors: [debtor('x', { debts: Array.from({ length: 21 }, (_, i) => debt(`d${i}`)) })] }, 'debtors[0].debts'],
      ['more than 10 phones', { debtors: [debtor('x', { contactInfoPhoneNumbers: Array.from({ length: 11 }, (_, i) => ({ phone: `+3460011223${i % 10}` })) })] }, 'debtors[0].contactInfoPhoneNumbers'],
      ['more than 5 emails', { debtors: [debtor('x', { contactInfoEmails: Array.from({ length: 6 }, (_, i) => ({ address: `a${i}@example.com` })) })] }, 'debtors[0].contactInfoEmails'],
      ['unknown field', { debtors: [debtor('x', { status: 'settled' })] }, 'debtors[0].status'],
      ['debtors not an array', { debtors: 'x' }, 'debtors'],
      ['a debtor that is not an object', { debtors: [debtor('ok'), 5] }, 'debtors[1]'],
      ['a debt that is not an object', { debtors: [debtor('x', { debts: [null] })] }, 'debtors[0].debts[0]'],
      ['a string amount', { debtors: [debtor('x', { debts: [debt('d', { totalAmount: '10' })] })] }, 'debtors[0].debts[0].totalAmount'],
    ])('%s', async (_name, body, path) => {
      const res = await post(body);
      expectError(res, 400, 'validation_error');
      expect(res.body.error.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.any(String) })]));
    });

    it('one bad item rejects the whole batch: the valid item is not written', async () => {
      const good = uid('good');
      const res = await post({ debtors: [debtor(good), debtor('y'), debtor('z', { debts: [debt('d', { currency: 'E1R' })] })] });
      expectError(res, 400, 'validation_error');
      expect(res.body.error.issues).toEqual([expect.objectContaining({ path: 'debtors[2].debts[0].currency' })]);
      expect(await q('SELECT 1 FROM debtors WHERE external_id = $1', [good])).toEqual([]);
    });
  });

  describe('size limits (413)', () => {
    it('more than 500 debtors: payload_too_large pointing to the load flow, before the schema check', async () => {
      const res = await post({ debtors: Array.from({ length: 501 }, () => ({ bogus: true })) });
      expectError(res, 413, 'payload_too_large');
      expect(res.body.error.message).toContain(LOAD_FLOW);
    });

    it('a body over 5 MB: payload_too_large, checked before the item count', async () => {
      const res = await post({ debtors: Array.from({ length: 600 }, () => ({ pad: 'x'.repeat(9000) })) });
      expectError(res, 413, 'payload_too_large');
      expect(res.body.error.message).toMatch(/5 MB/);
      expect(res.body.error.message).toContain(LOAD_FLOW);
    });

    it('a body over 6 MB: the platform 413 with only Message', async () => {
      const res = await rawPost(stack.publicUrl, `/public/v1/portfolios/${pf}/debtors`, { authorization: `Bearer ${tenant.key}` }, JSON.stringify({ debtors: [{ pad: 'x'.repeat(6.5 * 1024 * 1024) }] }));
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ Message: 'Request must be smaller than 6291456 bytes for the API' });
    });

    it('500 debtors with 20 debts each are accepted (large batches travel compressed)', async () => {
      const p = uid('big');
      const data = await ok({
        debtors: Array.from({ length: 500 }, (_, i) => debtor(`${p}-${i}`, { debts: Array.from({ length: 20 }, (_, j) => debt(`${p}-${i}-${j}`, { description: 'consumer loan instalment' })) })),
      });
      expect(data.summary).toEqual({ created: 500, received: 500, rejected: 0, updated: 0 });
      expect(await q('SELECT count(*)::int AS n FROM debts WHERE external_id LIKE $1', [`${p}-%`])).toEqual([{ n: 10000 }]);
    }, 60_000);
  });

  describe('text the database cannot hold', () => {
    it('a NUL character anywhere is 400 with its path, and nothing of the batch is written', async () => {
      const a = uid('nul');
      const res = await post({ debtors: [debtor(a), debtor(uid('nul'), { debts: [debt(uid('d'), { description: 'x\u0000y' })] })] });
      expectError(res, 400, 'validation_error');
      expect(res.body.error.issues).toEqual([{ message: 'debtors[1].debts[0].description contains a NUL character (\\u0000), which text fields cannot hold', path: 'debtors[1].debts[0].description' }]);
      expect(await q('SELECT count(*)::int AS n FROM debtors WHERE external_id = $1', [a])).toEqual([{ n: 0 }]);
    });
  });

  describe('large batches at the same time', () => {
    it('batches of 500 × 20 at once, two in one portfolio and one in another, and a small one, all succeed', async () => {
      // Each large batch holds one lock (its portfolio's), not one per debt: 10,000 locks a batch
      // overflowed Postgres's shared lock table as soon as two ran at once ("out of shared memory").
      const batch = (p: string, debtors = 500, debts = 20) => ({
        debtors: Array.from({ length: debtors }, (_, i) => debtor(`${p}-${i}`, { debts: Array.from({ length: debts }, (_, j) => debt(`${p}-${i}-${j}`)) })),
      });
      const responses = await Promise.all([
        post(batch(uid('pa'))),
        post(batch(uid('pb'))),
        post(batch(uid('pc')), tenant.key, tenant.portfolioIds[1]),
        post(batch(uid('small'), 3, 2)),
      ]);
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const full = { created: 500, received: 500, rejected: 0, updated: 0 };
      expect(responses.map((r) => r.body.data.summary)).toEqual([full, full, full, { created: 3, received: 3, rejected: 0, updated: 0 }]);
    }, 120_000);
  });

  describe('reach and scope', () => {
    it('403 forbidden with a read-only key', async () => {
      expectError(await post({ debtors: [debtor('x')] }, tenant.readKey), 403, 'forbidden');
    });

    it('404 for a portfolio of another organization, a malformed id, an inactive portfolio, or outside the key list', async () => {
      const other = await createTenant(operator, { name: 'Other' });
      expectError(await post({ debtors: [debtor('x')] }, tenant.key, other.portfolioIds[0]), 404, 'not_found');
      expectError(await post({ debtors: [debtor('x')] }, tenant.key, 'pf_nope'), 404, 'not_found');
      const t = await createTenant(operator, { portfolios: 2 });
      const restricted = await operator.expect(201, 'POST', `/organizations/${t.organizationId}/api-keys`, { scopes: ['read', 'write'], portfolioIds: [t.portfolioIds[0]] });
      expect((await post({ debtors: [debtor(uid('r'))] }, restricted.data.key, t.portfolioIds[0])).status).toBe(200);
      expectError(await post({ debtors: [debtor('x')] }, restricted.data.key, t.portfolioIds[1]), 404, 'not_found');
      await operator.expect(200, 'PATCH', `/portfolios/${t.portfolioIds[1]}`, { status: 'inactive' });
      expectError(await post({ debtors: [debtor('x')] }, t.key, t.portfolioIds[1]), 404, 'not_found');
    });
  });

  describe('per-item rejections (200; the item leaves nothing behind, others unaffected)', () => {
    async function rejected(item: Record<string, unknown>, code: string, path: string, before: unknown[] = []) {
      const ok1 = uid('ok');
      const data = await ok({ debtors: [...before, item, debtor(ok1)] });
      const r = data.results[before.length];
      expect(r).toMatchObject({ index: before.length, externalId: item.externalId, status: 'rejected', debts: [], reason: { code, path, message: expect.any(String) } });
      expect(data.results[before.length + 1]).toMatchObject({ status: 'created', externalId: ok1 });
      const count = (status: string) => data.results.filter((x: { status: string }) => x.status === status).length;
      expect(data.summary).toEqual({ received: before.length + 2, created: count('created'), updated: count('updated'), rejected: count('rejected') });
      expect(data.summary.rejected).toBeGreaterThanOrEqual(1);
      return data;
    }

    it('invalid_phone (not E.164; a repeated number)', async () => {
      const a = uid('ph');
      await rejected(debtor(a, { contactInfoPhoneNumbers: [{ phone: '+34600112233' }, { phone: '600112233' }], debts: [debt(`${a}-d`)] }), 'invalid_phone', 'debtors[0].contactInfoPhoneNumbers[1].phone');
      await rejected(debtor(a, { contactInfoPhoneNumbers: [{ phone: '+0600112233' }] }), 'invalid_phone', 'debtors[0].contactInfoPhoneNumbers[0].phone');
      await rejected(debtor(a, { contactInfoPhoneNumbers: [{ phone: '+34 600 11 22 33' }, { phone: '+34600112233' }] }), 'invalid_phone', 'debtors[0].contactInfoPhoneNumbers[1].phone');
      expect(await q('SELECT 1 FROM debtors WHERE external_id = $1', [a])).toEqual([]);
      expect(await q('SELECT 1 FROM debts WHERE external_id = $1', [`${a}-d`])).toEqual([]);
    });

    it('a rejected item of a new debtor has id null; of an existing debtor, that debtor\'s id', async () => {
      const a = uid('known');
      const id = (await ok({ debtors: [debtor(a)] })).results[0].id;
      const invalid = { contactInfoPhoneNumbers: [{ phone: '600112233' }] };
      expect((await rejected(debtor(uid('new'), invalid), 'invalid_phone', 'debtors[0].contactInfoPhoneNumbers[0].phone')).results[0].id).toBeNull();
      expect((await rejected(debtor(a, invalid), 'invalid_phone', 'debtors[0].contactInfoPhoneNumbers[0].phone')).results[0].id).toBe(id);
    });

    it('duplicate_in_batch: the first is processed, later duplicates rejected', async () => {
      const a = uid('dup');
      const data = await ok({ debtors: [debtor(a), debtor(a, { identityFirstName: 'Second' })] });
      expect(data.results[0]).toMatchObject({ status: 'created' });
      expect(data.results[1]).toMatchObject({ status: 'rejected', reason: { code: 'duplicate_in_batch', path: 'debtors[1].externalId' } });
      expect(await q('SELECT identity_first_name FROM debtors WHERE external_id = $1', [a])).toEqual([{ identity_first_name: 'Ana' }]);
    });

    it('invalid_amount: paidAmount above totalAmount; more than 4 decimals', async () => {
      await rejected(debtor(uid('am'), { debts: [debt(uid('d'), { totalAmount: 10, paidAmount: 10.01 })] }), 'invalid_amount', 'debtors[0].debts[0].paidAmount');
      await rejected(debtor(uid('am'), { debts: [debt(uid('d'), { totalAmount: 10.12345 })] }), 'invalid_amount', 'debtors[0].debts[0].totalAmount');
    });

    it('debt_currency_invalid: well-formed but not ISO 4217', async () => {
      await rejected(debtor(uid('cur'), { debts: [debt(uid('d'), { currency: 'ABC' })] }), 'debt_currency_invalid', 'debtors[0].debts[0].currency');
    });

    it('debt_duplicate_in_item', async () => {
      const d = uid('d');
      await rejected(debtor(uid('di'), { debts: [debt(d), debt(d)] }), 'debt_duplicate_in_item', 'debtors[0].debts[1].externalId');
    });

    it('debt_duplicate_in_batch: two items declare the same new debt; the first wins', async () => {
      const d = uid('d');
      const a = uid('first');
      const data = await rejected(debtor(uid('second'), { debts: [debt(d)] }), 'debt_duplicate_in_batch', 'debtors[1].debts[0].externalId', [debtor(a, { debts: [debt(d)] })]);
      expect(data.results[0]).toMatchObject({ status: 'created', debts: [{ externalId: d, status: 'created' }] });
      expect(await q('SELECT count(*)::int AS n FROM debts WHERE external_id = $1', [d])).toEqual([{ n: 1 }]);
    });

    it('a rejected item does not claim its debts: a later item may create them', async () => {
      const d = uid('d');
      const data = await ok({ debtors: [debtor(uid('x'), { debts: [debt(d), debt(uid('e'), { currency: 'ABC' })] }), debtor(uid('y'), { debts: [debt(d)] })] });
      expect(data.results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'created']);
    });

    it('debt_external_id_in_use: the whole item is rejected, nothing of it created', async () => {
      const owner = uid('owner');
      const d = uid('d');
      await ok({ debtors: [debtor(owner, { debts: [debt(d)] })] });
      const thief = uid('thief');
      const newDebt = uid('d');
      await rejected(debtor(thief, { debts: [debt(newDebt), debt(d)], contactInfoPhoneNumbers: [{ phone: '+34600000001' }] }), 'debt_external_id_in_use', 'debtors[0].debts[1].externalId');
      expect(await q('SELECT 1 FROM debtors WHERE external_id = $1', [thief])).toEqual([]);
      expect(await q('SELECT 1 FROM debts WHERE external_id = $1', [newDebt])).toEqual([]);
    });

    it('debt_currency_mismatch: the currency of an existing debt never changes', async () => {
      const a = uid('cm');
      const d = uid('d');
      await ok({ debtors: [debtor(a, { debts: [debt(d)] })] });
      const data = await rejected(debtor(a, { identityFirstName: 'Changed', debts: [debt(d, { currency: 'USD', totalAmount: 5 })] }), 'debt_currency_mismatch', 'debtors[0].debts[0].currency');
      expect(data.results[0].id).toEqual(expect.stringMatching(/^dbt_/));
      expect(await q('SELECT identity_first_name FROM debtors WHERE external_id = $1', [a])).toEqual([{ identity_first_name: 'Ana' }]);
      expect(await q('SELECT currency, total_amount::text FROM debts WHERE external_id = $1', [d])).toEqual([{ currency: 'EUR', total_amount: '100.0000' }]);
    });

    // Tombstones written before they were keyed (unsalted SHA-256); erasure.e2e-spec.ts covers the keyed ones.
    it('erased_subject: a legacy tombstone prevents re-creation; an existing live debtor is still updated', async () => {
      const erased = uid('erased');
      await q(`INSERT INTO debtor_erasures (portfolio_id, external_id_hash, scheme) VALUES ($1, $2, 'sha256')`, [pf, legacyErasureHash(erased)]);
      await rejected(debtor(erased), 'erased_subject', 'debtors[0].externalId');
      expect(await q('SELECT 1 FROM debtors WHERE external_id = $1', [erased])).toEqual([]);
      // Another portfolio of the same organization is unaffected.
      const other = await post({ debtors: [debtor(erased)] }, tenant.key, tenant.portfolioIds[1]);
      expect(other.body.data.results[0].status).toBe('created');
      const live = uid('live');
      await ok({ debtors: [debtor(live)] });
      await q(`INSERT INTO debtor_erasures (portfolio_id, external_id_hash, scheme) VALUES ($1, $2, 'sha256')`, [pf, legacyErasureHash(live)]);
      expect((await ok({ debtors: [debtor(live)] })).results[0].status).toBe('updated');
    });
  });

  describe('update semantics', () => {
    it('fields sent overwrite, fields not sent are kept; required identity fields always overwrite; status and priority never written', async () => {
      const a = uid('upd');
      const full = {
        identityLastName: 'L', identityEntityType: 'person', contactInfoContactName: 'C', contactInfoAddressStreet: 'S',
        contactInfoAddressCity: 'Ci', contactInfoAddressState: 'St', contactInfoAddressPostalCode: 'P', contactInfoAddressCountry: 'ES',
      };
      const { results } = await ok({ debtors: [debtor(a, full)] });
      await q("UPDATE debtors SET status = 'settled', priority = 7 WHERE id = $1", [results[0].id]);
      await ok({ debtors: [{ externalId: a, identityFirstName: 'New', identityDocumentType: 'passport', identityDocumentNumber: 'P1', contactInfoAddressCity: 'Other' }] });
      const [row] = await q('SELECT * FROM debtors WHERE id = $1', [results[0].id]);
      expect(row).toMatchObject({
        identity_first_name: 'New', identity_document_type: 'passport', identity_document_number: 'P1', identity_last_name: 'L',
        identity_entity_type: 'person', contact_info_contact_name: 'C', contact_info_address_street: 'S', contact_info_address_city: 'Other',
        contact_info_address_state: 'St', contact_info_address_postal_code: 'P', contact_info_address_country: 'ES', status: 'settled', priority: 7,
      });
    });

    it('compliance booleans: absent on update = untouched, sent = overwrite', async () => {
      const a = uid('cmp');
      const { results } = await ok({ debtors: [debtor(a, { complianceConsentToWhatsapp: true, complianceConsentToSms: false })] });
      await ok({ debtors: [debtor(a, { complianceConsentToCall: false })] });
      const [row] = await q('SELECT compliance_opt_out, compliance_consent_to_call, compliance_consent_to_whatsapp, compliance_consent_to_email, compliance_consent_to_sms FROM debtors WHERE id = $1', [results[0].id]);
      expect(row).toEqual({ compliance_opt_out: false, compliance_consent_to_call: false, compliance_consent_to_whatsapp: true, compliance_consent_to_email: true, compliance_consent_to_sms: false });
    });

    it('complianceOptOut true records an opt-out once: note, timeline entry, pending messages cancelled', async () => {
      const a = uid('opt');
      const { results } = await ok({ debtors: [debtor(a)] });
      const id = results[0].id;
      const pending = fixtureId('msg');
      const sent = fixtureId('msg');
      await q("INSERT INTO debtor_pending_messages (id, debtor_id, channel, status, scheduled_at) VALUES ($1, $3, 'sms', 'pending', now()), ($2, $3, 'email', 'sent', now())", [pending, sent, id]);
      await ok({ debtors: [debtor(a, { complianceOptOut: true })] });
      expect(await q('SELECT compliance_opt_out FROM debtors WHERE id = $1', [id])).toEqual([{ compliance_opt_out: true }]);
      expect(await q("SELECT kind FROM debtor_notes WHERE debtor_id = $1", [id])).toEqual([{ kind: 'opt_out' }]);
      expect(await q("SELECT kind FROM debtor_timeline_events WHERE debtor_id = $1", [id])).toEqual([{ kind: 'opt_out' }]);
      expect(await q('SELECT id, status, cancel_reason, cancelled_at IS NOT NULL AS c FROM debtor_pending_messages WHERE debtor_id = $1 ORDER BY id', [id])).toEqual(
        [{ id: pending, status: 'cancelled', cancel_reason: 'opt_out', c: true }, { id: sent, status: 'sent', cancel_reason: null, c: false }].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
      // Already opted out: no second note.
      await ok({ debtors: [debtor(a, { complianceOptOut: true })] });
      expect(await q('SELECT count(*)::int AS n FROM debtor_notes WHERE debtor_id = $1', [id])).toEqual([{ n: 1 }]);
      // Opt-out on create also records it.
      const b = uid('opt-new');
      const created = await ok({ debtors: [debtor(b, { complianceOptOut: true })] });
      expect(await q('SELECT count(*)::int AS n FROM debtor_timeline_events WHERE debtor_id = $1', [created.results[0].id])).toEqual([{ n: 1 }]);
    });

    it('phones: full authority; a known number matched across formats keeps what was learned; owner only when sent', async () => {
      const a = uid('phones');
      const { results } = await ok({ debtors: [debtor(a, { contactInfoPhoneNumbers: [{ phone: '+34 600 11 22 33', primary: true, type: 'mobile', owner: 'holder' }, { phone: '+34611000000' }, { phone: '+34622000000' }] })] });
      const id = results[0].id;
      await q("UPDATE debtor_phones SET verified = true, verification_status = 'verified', origin = 'call' WHERE phone_e164 = '+34600112233' AND debtor_id = $1", [id]);
      await ok({ debtors: [debtor(a, { contactInfoPhoneNumbers: [{ phone: '+34622000000', owner: 'reference' }, { phone: '+34600112233', primary: false, type: 'landline' }, { phone: '+34633000000' }] })] });
      const phones = await q('SELECT phone, phone_e164, position, "primary", type, owner, owner_source, verified, verification_status, origin FROM debtor_phones WHERE debtor_id = $1 ORDER BY position', [id]);
      expect(phones).toEqual([
        { phone: '+34622000000', phone_e164: '+34622000000', position: 0, primary: false, type: null, owner: 'reference', owner_source: 'client', verified: false, verification_status: 'unverified', origin: 'api' },
        { phone: '+34600112233', phone_e164: '+34600112233', position: 1, primary: false, type: 'mobile', owner: 'holder', owner_source: 'client', verified: true, verification_status: 'verified', origin: 'call' },
        { phone: '+34633000000', phone_e164: '+34633000000', position: 2, primary: false, type: null, owner: 'unknown', owner_source: 'default', verified: false, verification_status: 'unverified', origin: 'api' },
      ]);
      // Missing or empty list: untouched.
      await ok({ debtors: [debtor(a)] });
      await ok({ debtors: [debtor(a, { contactInfoPhoneNumbers: [] })] });
      expect(await q('SELECT count(*)::int AS n FROM debtor_phones WHERE debtor_id = $1', [id])).toEqual([{ n: 3 }]);
    });

    it('emails: a sent list replaces all; absent keeps; empty deletes all', async () => {
      const a = uid('em');
      const { results } = await ok({ debtors: [debtor(a, { contactInfoEmails: [{ address: 'a@example.com' }, { address: 'b@example.com', primary: true }] })] });
      const id = results[0].id;
      await ok({ debtors: [debtor(a)] });
      expect(await q('SELECT count(*)::int AS n FROM debtor_emails WHERE debtor_id = $1', [id])).toEqual([{ n: 2 }]);
      await ok({ debtors: [debtor(a, { contactInfoEmails: [{ address: 'c@example.com', type: 'work' }] })] });
      expect(await q('SELECT address, type, position FROM debtor_emails WHERE debtor_id = $1', [id])).toEqual([{ address: 'c@example.com', type: 'work', position: 0 }]);
      await ok({ debtors: [debtor(a, { contactInfoEmails: [] })] });
      expect(await q('SELECT count(*)::int AS n FROM debtor_emails WHERE debtor_id = $1', [id])).toEqual([{ n: 0 }]);
    });

    it('debts: full snapshot, paid/active transitions, resending an old batch reverts amounts, texts kept when not sent, never deleted', async () => {
      const a = uid('debts');
      const d1 = uid('d1');
      const d2 = uid('d2');
      const oldBatch = { debtors: [debtor(a, { debts: [debt(d1, { totalAmount: 100, paidAmount: 10, description: 'first', dueDate: '2026-01-01' }), debt(d2)] })] };
      const first = await ok(oldBatch);
      const status = async (ext: string) => (await q('SELECT status, paid_amount::text AS paid, total_amount::text AS total, description, due_date FROM debts WHERE external_id = $1', [ext]))[0];
      const upd = await ok({ debtors: [debtor(a, { debts: [debt(d1, { totalAmount: 100, paidAmount: 100 })] })] });
      expect(upd.results[0].debts).toEqual([{ externalId: d1, id: first.results[0].debts[0].id, status: 'updated' }]);
      expect(await status(d1)).toEqual({ status: 'paid', paid: '100.0000', total: '100.0000', description: 'first', due_date: '2026-01-01' });
      // Omitted paidAmount is 0: back to active.
      await ok({ debtors: [debtor(a, { debts: [debt(d1, { description: 'second' })] })] });
      expect(await status(d1)).toMatchObject({ status: 'active', paid: '0.0000', description: 'second' });
      await ok(oldBatch);
      expect(await status(d1)).toMatchObject({ status: 'active', paid: '10.0000', description: 'first' });
      // d2 untouched by batches that omit it, and never deleted.
      expect(await status(d2)).toMatchObject({ status: 'active', total: '100.0000' });
      // cancelled is never changed by this route.
      await q("UPDATE debts SET status = 'cancelled' WHERE external_id = $1", [d2]);
      await ok({ debtors: [debtor(a, { debts: [debt(d2, { paidAmount: 100 })] })] });
      expect(await status(d2)).toMatchObject({ status: 'cancelled', paid: '100.0000' });
    });

    it('a deleted debtor is never revived: the same externalId creates a new debtor; its debts stay with it', async () => {
      const a = uid('del');
      const oldId = await db((c) => insertDebtor(c, { portfolioId: pf, externalId: a, deletedAt: new Date() }));
      const data = await ok({ debtors: [debtor(a)] });
      expect(data.results[0]).toMatchObject({ status: 'created' });
      expect(data.results[0].id).not.toBe(oldId);
      expect(await q('SELECT count(*)::int AS n FROM debtors WHERE external_id = $1', [a])).toEqual([{ n: 2 }]);
    });

    it('a debt of another debtor inserted directly is in use; a soft-deleted debt is not', async () => {
      const ownerId = await db((c) => insertDebtor(c, { portfolioId: pf }));
      const d = uid('d');
      await db((c) => insertDebt(c, { portfolioId: pf, debtorId: ownerId, externalId: d }));
      const r = await ok({ debtors: [debtor(uid('x'), { debts: [debt(d)] })] });
      expect(r.results[0].reason.code).toBe('debt_external_id_in_use');
      const gone = uid('d');
      const debtId = await db((c) => insertDebt(c, { portfolioId: pf, debtorId: ownerId, externalId: gone }));
      await q('UPDATE debts SET deleted_at = now() WHERE id = $1', [debtId]);
      expect((await ok({ debtors: [debtor(uid('x'), { debts: [debt(gone)] })] })).results[0].debts[0].status).toBe('created');
    });
  });

  describe('concurrency', () => {
    it('5 identical batches at once: exactly one debtor and one debt per externalId', async () => {
      const p = uid('conc');
      const body = { debtors: Array.from({ length: 50 }, (_, i) => debtor(`${p}-${i}`, { debts: [debt(`${p}-d-${i}`)], contactInfoPhoneNumbers: [{ phone: `+3460000${String(1000 + i)}` }] })) };
      const responses = await Promise.all(Array.from({ length: 5 }, () => post(body)));
      for (const r of responses) expect(r.status).toBe(200);
      const summaries = responses.map((r) => r.body.data.summary);
      expect(summaries.reduce((n, s) => n + s.created, 0)).toBe(50);
      expect(summaries.reduce((n, s) => n + s.updated, 0)).toBe(200);
      expect(await q('SELECT count(*)::int AS n FROM debtors WHERE external_id LIKE $1', [`${p}-%`])).toEqual([{ n: 50 }]);
      expect(await q('SELECT count(*)::int AS n FROM debts WHERE external_id LIKE $1', [`${p}-d-%`])).toEqual([{ n: 50 }]);
    });

    it('two debtors claim the same new debt in parallel: one created, the other debt_external_id_in_use', async () => {
      const d = uid('contested');
      const [r1, r2] = await Promise.all([post({ debtors: [debtor(uid('p1'), { debts: [debt(d)] })] }), post({ debtors: [debtor(uid('p2'), { debts: [debt(d)] })] })]);
      const statuses = [r1.body.data.results[0], r2.body.data.results[0]].map((r) => r.status === 'rejected' ? r.reason.code : r.status).sort();
      expect(statuses).toEqual(['created', 'debt_external_id_in_use']);
      expect(await q('SELECT count(*)::int AS n FROM debts WHERE external_id = $1', [d])).toEqual([{ n: 1 }]);
    });
  });
});
