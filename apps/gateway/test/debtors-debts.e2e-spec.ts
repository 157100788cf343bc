import { loadConfig } from '@dc/config';
import { ErasureTombstones } from '@dc/contracts';
import { createTenant, fixtureId, insertDebt, insertDebtor, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import request from 'supertest';

/** The pg client withDatabase hands out (the gateway project may not import pg itself). */
type Client = Parameters<Parameters<typeof withDatabase>[1]>[0];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('debtors and debts reads (spec: Resources, Pagination and list rules, Authentication 6)', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let other: Tenant;
  // Fixtures of `tenant`: portfolio 0 holds the full debtor and the status mix, portfolio 1 one debtor.
  let full: string;
  let fullDebt: string;
  let secondDebt: string;
  let settled: string;
  let deceased: string;
  let inSecond: string;
  let inSecondDebt: string;
  let deleted: string;
  let deletedDebt: string;
  let foreign: string;
  let foreignDebt: string;

  const sql = <T>(fn: (c: Client) => Promise<T>) => withDatabase(stack.databaseUrl, fn);
  /** The tombstone api-core writes (its ERASURE_HMAC_KEY: the development default of the stack's env). */
  const tombstoneOf = (externalId: string) => new ErasureTombstones(loadConfig('api-core', stack.env).erasure.hmacKey).tombstone(externalId);
  const get = (path: string, key = tenant.readKey) => request(stack.publicUrl).get(`/public/v1${path}`).set('Authorization', `Bearer ${key}`);
  const ids = (res: request.Response) => res.body.data.map((r: { id: string }) => r.id);

  function expectNotFound(res: request.Response) {
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: res.headers['x-request-id'] } });
  }

  function expectValidation(res: request.Response, message: string) {
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message,
      requestId: res.headers['x-request-id'],
      issues: [{ message, path: 'status' }],
    });
  }

  beforeAll(async () => {
    stack = await Stack.start();
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 2 });
    other = await createTenant(operator, { name: 'Other Org' });
    const [p0, p1] = tenant.portfolioIds;
    await sql(async (c) => {
      full = await insertDebtor(c, { portfolioId: p0, externalId: 'cust-1', firstName: 'Ana' });
      await c.query(
        `UPDATE debtors SET status = 'in_collection', priority = 3, identity_last_name = 'García', identity_document_type = 'passport',
           identity_document_number = 'X123', identity_entity_type = 'individual', contact_info_contact_name = 'Ana G.',
           contact_info_address_street = 'Calle 1', contact_info_address_city = 'Madrid', contact_info_address_state = 'MD',
           contact_info_address_postal_code = '28001', contact_info_address_country = 'ES', compliance_opt_out = true,
           compliance_consent_to_whatsapp = true, compliance_consent_to_sms = false
         WHERE id = $1`,
        [full],
      );
      // Inserted out of order: reads follow position.
      await c.query(
        `INSERT INTO debtor_phones (id, debtor_id, phone, phone_e164, position, "primary", type, owner, owner_source, verification_status, verified)
         VALUES ($1, $3, '+34 600 000 002', '+34600000002', 1, false, 'work', 'guarantor', 'client', 'unverified', false),
                ($2, $3, '+34600000001', '+34600000001', 0, true, 'mobile', 'holder', 'call_analysis', 'verified', true)`,
        [fixtureId('phn'), fixtureId('phn'), full],
      );
      await c.query(
        `INSERT INTO debtor_emails (id, debtor_id, address, position, "primary", type, verification_status, verified)
         VALUES ($1, $3, 'b@example.com', 1, false, null, 'unverified', false),
                ($2, $3, 'a@example.com', 0, true, 'personal', 'verified', true)`,
        [fixtureId('eml'), fixtureId('eml'), full],
      );
      await c.query(`INSERT INTO debtor_notes (id, debtor_id, kind, body) VALUES ($1, $2, 'operator', 'Ana asked to call after 6pm')`, [fixtureId('note'), full]);
      await c.query(`INSERT INTO debtor_timeline_events (id, debtor_id, kind, data) VALUES ($1, $2, 'note', '{"text":"Ana García"}')`, [fixtureId('tle'), full]);
      fullDebt = await insertDebt(c, { portfolioId: p0, debtorId: full, externalId: 'loan-1', totalAmount: 1234.5, paidAmount: 200.25, currency: 'EUR', dueDate: '2026-01-31' });
      await c.query(`UPDATE debts SET issue_date = '2025-12-01T10:00:00Z', description = 'Personal loan', debt_type = 'loan' WHERE id = $1`, [fullDebt]);
      secondDebt = await insertDebt(c, { portfolioId: p0, debtorId: full, externalId: 'loan-2', totalAmount: 50, paidAmount: 50, status: 'paid' });
      settled = await insertDebtor(c, { portfolioId: p0, status: 'settled' });
      deceased = await insertDebtor(c, { portfolioId: p0, status: 'deceased' });
      inSecond = await insertDebtor(c, { portfolioId: p1 });
      inSecondDebt = await insertDebt(c, { portfolioId: p1, debtorId: inSecond, status: 'cancelled' });
      deleted = await insertDebtor(c, { portfolioId: p0, deletedAt: new Date() });
      deletedDebt = await insertDebt(c, { portfolioId: p0, debtorId: deleted });
      foreign = await insertDebtor(c, { portfolioId: other.portfolioIds[0] });
      foreignDebt = await insertDebt(c, { portfolioId: other.portfolioIds[0], debtorId: foreign });
    });
  });
  afterAll(() => stack?.stop());

  describe('representations', () => {
    it('GET /debtors/{id} gives the debtor with contacts in position order', async () => {
      const res = await get(`/debtors/${full}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          id: full,
          portfolioId: tenant.portfolioIds[0],
          externalId: 'cust-1',
          status: 'in_collection',
          priority: 3,
          identityFirstName: 'Ana',
          identityLastName: 'García',
          identityDocumentType: 'passport',
          identityDocumentNumber: 'X123',
          identityEntityType: 'individual',
          contactInfoContactName: 'Ana G.',
          contactInfoAddressStreet: 'Calle 1',
          contactInfoAddressCity: 'Madrid',
          contactInfoAddressState: 'MD',
          contactInfoAddressPostalCode: '28001',
          contactInfoAddressCountry: 'ES',
          contactInfoPhoneNumbers: [
            { phone: '+34600000001', primary: true, type: 'mobile', owner: 'holder', ownerSource: 'call_analysis', verification: { status: 'verified', verified: true } },
            { phone: '+34 600 000 002', primary: false, type: 'work', owner: 'guarantor', ownerSource: 'client', verification: { status: 'unverified', verified: false } },
          ],
          contactInfoEmails: [
            { address: 'a@example.com', primary: true, type: 'personal', verification: { status: 'verified', verified: true } },
            { address: 'b@example.com', primary: false, type: null, verification: { status: 'unverified', verified: false } },
          ],
          complianceOptOut: true,
          complianceConsentToCall: true,
          complianceConsentToWhatsapp: true,
          complianceConsentToEmail: true,
          complianceConsentToSms: false,
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      });
    });

    it('serialised by Postgres exactly as the view: compact, fields in order, timestamps as toISOString()', async () => {
      const res = await get(`/debtors/${full}`);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.text).toBe(JSON.stringify(res.body));
      expect(Object.keys(res.body.data)).toEqual([
        'id', 'portfolioId', 'externalId', 'status', 'priority', 'identityFirstName', 'identityLastName', 'identityDocumentType',
        'identityDocumentNumber', 'identityEntityType', 'contactInfoContactName', 'contactInfoAddressStreet', 'contactInfoAddressCity',
        'contactInfoAddressState', 'contactInfoAddressPostalCode', 'contactInfoAddressCountry', 'contactInfoPhoneNumbers', 'contactInfoEmails',
        'complianceOptOut', 'complianceConsentToCall', 'complianceConsentToWhatsapp', 'complianceConsentToEmail', 'complianceConsentToSms',
        'createdAt', 'updatedAt',
      ]);
      // Stored to the millisecond (timestamptz(3) rounds), served as Date#toISOString() would.
      await sql((c) => c.query(`UPDATE debtors SET updated_at = '2026-03-04 07:06:07.123999+02' WHERE id = $1`, [full]));
      const stored = await sql((c) => c.query('SELECT created_at, updated_at FROM debtors WHERE id = $1', [full]));
      const again = await get(`/debtors/${full}`);
      expect(again.body.data.createdAt).toBe((stored.rows[0].created_at as Date).toISOString());
      expect(again.body.data.updatedAt).toBe((stored.rows[0].updated_at as Date).toISOString());
      expect(again.body.data.updatedAt).toBe('2026-03-04T05:06:07.124Z');
      const listed = await get(`/debtors?portfolioId=${tenant.portfolioIds[0]}&limit=100`);
      expect(listed.text).toBe(JSON.stringify(listed.body));
      expect(listed.body.data.find((d: { id: string }) => d.id === full)).toEqual(again.body.data);
    });

    it('a list item has exactly the by-id shape', async () => {
      const one = await get(`/debtors/${full}`);
      const list = await get(`/debtors?portfolioId=${tenant.portfolioIds[0]}`);
      expect(list.status).toBe(200);
      expect(list.body.data.find((d: { id: string }) => d.id === full)).toEqual(one.body.data);
      const bare = list.body.data.find((d: { id: string }) => d.id === settled);
      expect(bare).toMatchObject({ status: 'settled', priority: 0, identityLastName: null, contactInfoPhoneNumbers: [], contactInfoEmails: [] });
      expect(Object.keys(bare).sort()).toEqual(Object.keys(one.body.data).sort());
    });

    it('GET /debts/{id} gives amounts as numbers and dates as stored text', async () => {
      const res = await get(`/debts/${fullDebt}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          id: fullDebt,
          portfolioId: tenant.portfolioIds[0],
          debtorId: full,
          externalId: 'loan-1',
          totalAmount: 1234.5,
          paidAmount: 200.25,
          currency: 'EUR',
          status: 'active',
          dueDate: '2026-01-31',
          issueDate: '2025-12-01T10:00:00Z',
          description: 'Personal loan',
          debtType: 'loan',
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      });
      const list = await get(`/debts?debtorId=${full}`);
      expect(list.body.data.find((d: { id: string }) => d.id === fullDebt)).toEqual(res.body.data);
    });

    it('malformed path ids are 404', async () => {
      expectNotFound(await get('/debtors/nope'));
      expectNotFound(await get(`/debtors/${fullDebt}`));
      expectNotFound(await get('/debts/debt_123'));
      expectNotFound(await get(`/debts/${full}`));
    });
  });

  describe('filters', () => {
    it('debtors: no filter lists every readable debtor of the organization in id order', async () => {
      const res = await get('/debtors');
      expect(ids(res)).toEqual([full, settled, deceased, inSecond].sort());
      expect(res.body.pagination).toEqual({ hasMore: false, limit: 50, nextCursor: null });
    });

    it('debtors: portfolioId', async () => {
      expect(ids(await get(`/debtors?portfolioId=${tenant.portfolioIds[1]}`))).toEqual([inSecond]);
      expect(ids(await get('/debtors?portfolioId=pf_nope'))).toEqual([]);
      expect(ids(await get(`/debtors?portfolioId=${other.portfolioIds[0]}`))).toEqual([]);
    });

    it('debtors: status takes one or several comma-separated values', async () => {
      expect(ids(await get('/debtors?status=settled'))).toEqual([settled]);
      expect(ids(await get('/debtors?status=settled,deceased'))).toEqual([settled, deceased].sort());
      expect(ids(await get('/debtors?status=deceased&status=in_collection'))).toEqual([full, deceased].sort());
      expect(ids(await get(`/debtors?status=active&portfolioId=${tenant.portfolioIds[1]}`))).toEqual([inSecond]);
      expect(ids(await get('/debtors?status=unreachable'))).toEqual([]);
    });

    it.each(['paid', 'settled,bogus', 'ACTIVE', 'active,'])('debtors: status=%s is 400 naming the parameter and the allowed values', async (value) => {
      expectValidation(
        await get(`/debtors?status=${encodeURIComponent(value)}`),
        'status must be one or more of: active, in_collection, settled, unreachable, deceased (comma-separated)',
      );
    });

    it('debts: portfolioId, debtorId and status', async () => {
      expect(ids(await get('/debts'))).toEqual([fullDebt, secondDebt, inSecondDebt].sort());
      expect(ids(await get(`/debts?portfolioId=${tenant.portfolioIds[1]}`))).toEqual([inSecondDebt]);
      expect(ids(await get(`/debts?debtorId=${full}`))).toEqual([fullDebt, secondDebt].sort());
      expect(ids(await get(`/debts?debtorId=${full}&status=paid`))).toEqual([secondDebt]);
      expect(ids(await get('/debts?status=active'))).toEqual([fullDebt]);
      expect(ids(await get('/debts?status=cancelled'))).toEqual([inSecondDebt]);
      expect(ids(await get(`/debts?debtorId=${full}&portfolioId=${tenant.portfolioIds[1]}`))).toEqual([]);
      expect(ids(await get('/debts?debtorId=garbage'))).toEqual([]);
    });

    it.each(['active,paid', 'unknown', 'Paid'])('debts: status=%s is 400 (one value of the allowed set)', async (value) => {
      expectValidation(await get(`/debts?status=${value}`), 'status must be one of: active, paid, cancelled (a single value, not a list)');
    });

    it('debts: a repeated status parameter is 400 too', async () => {
      expect((await get('/debts?status=active&status=paid')).status).toBe(400);
    });

    it('debts: an empty status= means no filter, as on the other lists', async () => {
      expect(ids(await get('/debts?status='))).toEqual([fullDebt, secondDebt, inSecondDebt].sort());
    });

    it('a NUL character in a filter is 400 naming the parameter, never a database error', async () => {
      const res = await get('/debts?debtorId=a%00b');
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'validation_error',
        message: 'debtorId contains a NUL character (\\u0000), which text fields cannot hold',
        requestId: res.headers['x-request-id'],
        issues: [{ message: 'debtorId contains a NUL character (\\u0000), which text fields cannot hold', path: 'debtorId' }],
      });
      expect((await get('/debtors?portfolioId=%00')).status).toBe(400);
    });
  });

  describe('reach', () => {
    it("another organization's debtors and debts are 404 and absent from lists", async () => {
      expectNotFound(await get(`/debtors/${foreign}`));
      expectNotFound(await get(`/debts/${foreignDebt}`));
      expect(ids(await get('/debtors'))).not.toContain(foreign);
      expect(ids(await get('/debts'))).not.toContain(foreignDebt);
      expect(ids(await get(`/debts?debtorId=${foreign}`))).toEqual([]);
      // And the other way round.
      expect((await get(`/debtors/${foreign}`, other.readKey)).status).toBe(200);
      expectNotFound(await get(`/debtors/${full}`, other.readKey));
    });

    it("a restricted key reads only its portfolios' debtors and debts", async () => {
      const created = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'narrow' });
      await operator.expect(200, 'PATCH', `/api-keys/${created.data.id}`, { portfolioIds: [tenant.portfolioIds[1]] });
      const key: string = created.data.key;
      expect((await get(`/debtors/${inSecond}`, key)).status).toBe(200);
      expect((await get(`/debts/${inSecondDebt}`, key)).status).toBe(200);
      expectNotFound(await get(`/debtors/${full}`, key));
      expectNotFound(await get(`/debts/${fullDebt}`, key));
      expect(ids(await get('/debtors', key))).toEqual([inSecond]);
      expect(ids(await get('/debts', key))).toEqual([inSecondDebt]);
      expect(ids(await get(`/debtors?portfolioId=${tenant.portfolioIds[0]}`, key))).toEqual([]);
      expect(ids(await get(`/debts?debtorId=${full}`, key))).toEqual([]);
    });

    it('debtors and debts of an inactive portfolio are 404 and absent', async () => {
      const t = await createTenant(operator, { portfolios: 2, name: 'Inactive Org' });
      const [debtor, debt] = await sql(async (c) => {
        const d = await insertDebtor(c, { portfolioId: t.portfolioIds[0] });
        return [d, await insertDebt(c, { portfolioId: t.portfolioIds[0], debtorId: d })];
      });
      expect((await get(`/debtors/${debtor}`, t.readKey)).status).toBe(200);
      await operator.expect(200, 'PATCH', `/portfolios/${t.portfolioIds[0]}`, { status: 'inactive' });
      expectNotFound(await get(`/debtors/${debtor}`, t.readKey));
      expectNotFound(await get(`/debts/${debt}`, t.readKey));
      expect(ids(await get('/debtors', t.readKey))).toEqual([]);
      expect(ids(await get('/debts', t.readKey))).toEqual([]);
    });
  });

  describe('deletion and erasure', () => {
    const op = (method: string, path: string) => operator.request(method, path);

    it('a deleted debtor and its debts are unreadable', async () => {
      expectNotFound(await get(`/debtors/${deleted}`));
      expectNotFound(await get(`/debts/${deletedDebt}`));
      expect(ids(await get('/debtors'))).not.toContain(deleted);
      expect(ids(await get('/debts'))).not.toContain(deletedDebt);
    });

    it('DELETE /operator/v1/debtors/{id}: 204, then 404 on reads; debts soft-deleted, externalIds free', async () => {
      const [debtor, debt] = await sql(async (c) => {
        const d = await insertDebtor(c, { portfolioId: tenant.portfolioIds[1], externalId: 'to-delete' });
        await c.query(`INSERT INTO debtor_pending_messages (id, debtor_id, channel, scheduled_at) VALUES ($1, $2, 'sms', now())`, [fixtureId('msg'), d]);
        return [d, await insertDebt(c, { portfolioId: tenant.portfolioIds[1], debtorId: d, externalId: 'to-delete-debt' })];
      });
      expect((await get(`/debtors/${debtor}`)).status).toBe(200);
      const res = await op('DELETE', `/debtors/${debtor}`);
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      expectNotFound(await get(`/debtors/${debtor}`));
      expectNotFound(await get(`/debts/${debt}`));
      expect(ids(await get('/debtors'))).not.toContain(debtor);
      // Idempotent; the deletion time is kept.
      const before = await sql((c) => c.query('SELECT deleted_at FROM debtors WHERE id = $1', [debtor]));
      expect((await op('DELETE', `/debtors/${debtor}`)).status).toBe(204);
      const after = await sql((c) => c.query('SELECT deleted_at FROM debtors WHERE id = $1', [debtor]));
      expect(after.rows[0].deleted_at).toEqual(before.rows[0].deleted_at);
      // A new debtor and debt may take the same externalIds (the live unique indexes allow it).
      await sql(async (c) => {
        expect((await c.query('SELECT deleted_at FROM debts WHERE id = $1', [debt])).rows[0].deleted_at).not.toBeNull();
        expect((await c.query('SELECT status FROM debtor_pending_messages WHERE debtor_id = $1', [debtor])).rows).toEqual([{ status: 'cancelled' }]);
        const again = await insertDebtor(c, { portfolioId: tenant.portfolioIds[1], externalId: 'to-delete' });
        await insertDebt(c, { portfolioId: tenant.portfolioIds[1], debtorId: again, externalId: 'to-delete-debt' });
      });
    });

    it('DELETE and erase of an unknown or malformed id are 404 not_found', async () => {
      for (const path of [`/debtors/${fixtureId('dbt')}`, '/debtors/nope']) {
        const del = await op('DELETE', path);
        expect(del.status).toBe(404);
        expect(del.body.error.code).toBe('not_found');
        const erase = await op('POST', `${path}/erase`);
        expect(erase.status).toBe(404);
        expect(erase.body.error.code).toBe('not_found');
      }
    });

    it('POST /operator/v1/debtors/{id}/erase wipes personal data, tombstones the externalId, hides debtor and debts', async () => {
      const res = await op('POST', `/debtors/${full}/erase`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { id: full, erasedAt: expect.stringMatching(ISO) } });

      expectNotFound(await get(`/debtors/${full}`));
      expectNotFound(await get(`/debts/${fullDebt}`));
      expect(ids(await get('/debtors'))).not.toContain(full);
      expect(ids(await get(`/debts?debtorId=${full}`))).toEqual([]);

      await sql(async (c) => {
        const { rows: [d] } = await c.query('SELECT * FROM debtors WHERE id = $1', [full]);
        expect(d).toMatchObject({
          external_id: null,
          identity_first_name: null,
          identity_last_name: null,
          identity_document_type: null,
          identity_document_number: null,
          identity_entity_type: null,
          contact_info_contact_name: null,
          contact_info_address_street: null,
          contact_info_address_city: null,
          contact_info_address_state: null,
          contact_info_address_postal_code: null,
          contact_info_address_country: null,
        });
        expect(d.deleted_at).not.toBeNull();
        expect(d.erased_at.toISOString()).toBe(res.body.data.erasedAt);
        expect((await c.query('SELECT count(*)::int AS n FROM debtor_phones WHERE debtor_id = $1', [full])).rows[0].n).toBe(0);
        expect((await c.query('SELECT count(*)::int AS n FROM debtor_emails WHERE debtor_id = $1', [full])).rows[0].n).toBe(0);
        expect((await c.query('SELECT body FROM debtor_notes WHERE debtor_id = $1', [full])).rows).toEqual([{ body: '' }]);
        expect((await c.query('SELECT data FROM debtor_timeline_events WHERE debtor_id = $1', [full])).rows).toEqual([{ data: {} }]);
        const debts = await c.query('SELECT deleted_at, description FROM debts WHERE debtor_id = $1', [full]);
        expect(debts.rows).toHaveLength(2);
        for (const row of debts.rows) expect(row).toEqual({ deleted_at: expect.any(Date), description: null });
        const tombstones = await c.query('SELECT portfolio_id, external_id_hash, scheme FROM debtor_erasures');
        expect(tombstones.rows).toEqual([{ portfolio_id: tenant.portfolioIds[0], external_id_hash: tombstoneOf('cust-1'), scheme: 'hmac-sha256' }]);
      });

      // Idempotent: the same erasedAt, no second tombstone.
      const again = await op('POST', `/debtors/${full}/erase`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
      expect((await sql((c) => c.query('SELECT count(*)::int AS n FROM debtor_erasures'))).rows[0].n).toBe(1);
    });

    it('an already deleted debtor can still be erased', async () => {
      const res = await op('POST', `/debtors/${deleted}/erase`);
      expect(res.status).toBe(200);
      await sql(async (c) => {
        const { rows: [d] } = await c.query('SELECT external_id, identity_first_name, erased_at FROM debtors WHERE id = $1', [deleted]);
        expect(d).toEqual({ external_id: null, identity_first_name: null, erased_at: expect.any(Date) });
        const ext = `ext-${deleted}`;
        expect((await c.query('SELECT 1 FROM debtor_erasures WHERE external_id_hash = $1', [tombstoneOf(ext)])).rowCount).toBe(1);
      });
    });
  });

  describe('pagination', () => {
    let portfolioId: string;
    let key: string;
    let expected: string[];

    beforeAll(async () => {
      const t = await createTenant(operator, { name: 'Many Debtors' });
      portfolioId = t.portfolioIds[0];
      key = t.readKey;
      // 130 debtors with two phones and one email each, in one statement per table.
      expected = await sql(async (c) => {
        const created: string[] = [];
        for (let i = 0; i < 130; i += 1) created.push(fixtureId('dbt'));
        await c.query(
          `INSERT INTO debtors (id, portfolio_id, external_id, identity_first_name) SELECT id, $2, 'ext-' || id, 'N' FROM unnest($1::text[]) AS id`,
          [created, portfolioId],
        );
        await c.query(
          `INSERT INTO debtor_phones (id, debtor_id, phone, phone_e164, position, "primary")
           SELECT 'phn_' || substr(d, 5) || p, d, '+3460000000' || p, '+3460000000' || p, p, p = 0
           FROM unnest($1::text[]) AS d, generate_series(0, 1) AS p`,
          [created],
        );
        await c.query(
          `INSERT INTO debtor_emails (id, debtor_id, address, position, "primary") SELECT 'eml_' || substr(d, 5), d, 'x@example.com', 0, true FROM unnest($1::text[]) AS d`,
          [created],
        );
        return created.sort();
      });
    });

    it('walks 130 debtors in id order, each exactly once, with their contacts', async () => {
      const seen: string[] = [];
      const pages: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(`/debtors?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
        expect(res.status).toBe(200);
        pages.push(res.body.data.length);
        for (const d of res.body.data) {
          expect(d.contactInfoPhoneNumbers.map((p: { phone: string }) => p.phone)).toEqual(['+34600000000', '+34600000001']);
          expect(d.contactInfoEmails).toHaveLength(1);
        }
        seen.push(...ids(res));
        cursor = res.body.pagination.nextCursor;
        expect(res.body.pagination.hasMore).toBe(cursor !== null);
      } while (cursor);
      expect(pages).toEqual([50, 50, 30]);
      expect(seen).toEqual(expected);
    });

    it('a page of 100 with filters keeps the limit rules', async () => {
      const res = await get(`/debtors?limit=500&status=active&portfolioId=${portfolioId}`, key);
      expect(res.body.data).toHaveLength(100);
      expect(res.body.pagination).toEqual({ hasMore: true, limit: 100, nextCursor: expect.any(String) });
      const rest = await get(`/debtors?limit=100&status=active&portfolioId=${portfolioId}&cursor=${encodeURIComponent(res.body.pagination.nextCursor)}`, key);
      expect(ids(rest)).toEqual(expected.slice(100));
      expect(rest.body.pagination).toEqual({ hasMore: false, limit: 100, nextCursor: null });
    });

    it('debts page the same way', async () => {
      const debts = await sql(async (c) => {
        const out: string[] = [];
        for (const debtorId of expected.slice(0, 60)) out.push(await insertDebt(c, { portfolioId, debtorId }));
        return out.sort();
      });
      const first = await get('/debts?limit=40', key);
      const second = await get(`/debts?limit=40&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, key);
      expect([...ids(first), ...ids(second)]).toEqual(debts);
      expect(second.body.pagination).toEqual({ hasMore: false, limit: 40, nextCursor: null });
    });
  });
});
