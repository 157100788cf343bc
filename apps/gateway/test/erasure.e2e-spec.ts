import { loadConfig } from '@dc/config';
import { ErasureTombstones, legacyErasureHash } from '@dc/contracts';
import { createTenant, fixtureId, insertDebtor, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import { createHash } from 'node:crypto';
import request from 'supertest';

type Client = Parameters<Parameters<typeof withDatabase>[1]>[0];

/**
 * Erasure that erases (docs/adr/0025): one operator call removes every
 * copy of the subject's personal data from the database — the debtor, its contacts, notes, call
 * numbers and analysis, payment references, event payloads (relayed or not) read by pending
 * deliveries — while calls, payments and promises stay listed as history; the tombstone is an HMAC
 * of the NFC externalId; legacy SHA-256 tombstones still refuse. No dispatcher runs here: the
 * delivery stays pending.
 */
describe('debtor erasure (docs/adr/0025)', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let pf: string;
  let tombstones: ErasureTombstones;

  const sql = <T>(fn: (c: Client) => Promise<T>) => withDatabase(stack.databaseUrl, fn);
  const q = async (text: string, params: unknown[] = []) => sql(async (c) => (await c.query(text, params)).rows);
  const get = (path: string) => request(stack.publicUrl).get(`/public/v1${path}`).set('Authorization', `Bearer ${tenant.readKey}`);
  const batch = (debtors: unknown[]) =>
    request(stack.publicUrl).post(`/public/v1/portfolios/${pf}/debtors`).set('Authorization', `Bearer ${tenant.key}`).send({ debtors });
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
  /** A call as lists and call.completed show it: the by-id view without analysis, keys in order. */
  const listItem = (call: Record<string, unknown>) => Object.fromEntries(Object.entries(call).filter(([key]) => key !== 'analysis'));

  beforeAll(async () => {
    stack = await Stack.start();
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator);
    pf = tenant.portfolioIds[0];
    tombstones = new ErasureTombstones(loadConfig('api-core', stack.env).erasure.hmacKey);
  });
  afterAll(() => stack?.stop());

  /** A call (completed: it writes call.completed), a payment with a reference (payment.registered) and a promise of the debtor. */
  async function activity(debtorId: string, debtId: string, tag: string) {
    const call = (
      await operator.expect(201, 'POST', `/portfolios/${pf}/calls`, {
        debtorId,
        direction: 'outbound',
        status: 'completed',
        fromNumber: '+34911555666',
        toNumber: '+34611222333',
        connectedAt: '2026-01-05T10:00:01Z',
        effectiveDurationSec: 42,
        analysis: { summary: `Zebulon ${tag} promised to pay on Friday`, sentiment: 0.3, disposition: `callback requested by Zebulon ${tag}`, outcomes: ['promise'] },
      })
    ).data;
    const paid = await request(stack.publicUrl)
      .post('/public/v1/payments')
      .set('Authorization', `Bearer ${tenant.key}`)
      .send({ amount: 25, debtorId, debtId, externalId: `pay-${tag}`, paymentDate: '2026-01-06', portfolioId: pf, reference: `VOUCHER-${tag}` });
    expect(paid.status).toBe(201);
    const promise = (await operator.expect(201, 'POST', `/portfolios/${pf}/promises`, { debtorId, debtId, callId: call.id, amount: 50, promiseDate: '2026-02-01' })).data;
    return { call, payment: paid.body.data, promise };
  }

  /** A debtor through the batch route, with phones, an email, an address and a debt. */
  async function subject(externalId: string, tag: string): Promise<{ debtorId: string; debtId: string }> {
    const res = await batch([
      {
        externalId,
        identityFirstName: `Zebulon ${tag}`,
        identityLastName: 'Quillfeather',
        identityDocumentType: 'passport',
        identityDocumentNumber: `DOC99887766${tag}`,
        contactInfoContactName: 'Zeb Quill',
        contactInfoAddressStreet: 'Calle Inventada 42',
        contactInfoAddressCity: 'Villaquimera',
        contactInfoAddressPostalCode: '28999',
        contactInfoPhoneNumbers: [{ phone: '+34 611 222 333', primary: true }, { phone: '+34622333444' }],
        contactInfoEmails: [{ address: 'zebulon.quillfeather@example.org', primary: true }],
        debts: [{ externalId: `loan-${tag}`, totalAmount: 500, currency: 'EUR', description: 'Loan for Zebulon Quillfeather' }],
        complianceOptOut: true,
      },
    ]);
    expect(res.status).toBe(200);
    const [result] = res.body.data.results;
    expect(result.status).toBe('created');
    return { debtorId: result.id, debtId: result.debts[0].id };
  }

  /** Every row of every table of the database as JSON text (all columns: text, json, arrays). */
  async function everyRow(): Promise<string> {
    return sql(async (c) => {
      const tables = (await c.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((r) => r.tablename as string);
      expect(tables).toEqual(expect.arrayContaining(['debtors', 'calls', 'payments', 'outbox_events', 'webhook_deliveries', 'debtor_erasures', 'import_rows']));
      const dumps: string[] = [];
      for (const table of tables) {
        const rows = await c.query(`SELECT row_to_json(t)::text AS j FROM ${c.escapeIdentifier(table)} t`);
        dumps.push(...rows.rows.map((r) => `${table}: ${r.j}`));
      }
      return dumps.join('\n');
    });
  }

  it('one call scrubs every copy of the subject from the database and from every read; the records stay as history', async () => {
    const externalId = 'subject-ZQ-4711';
    const { debtorId, debtId } = await subject(externalId, 'A');
    const { call, payment, promise } = await activity(debtorId, debtId, 'A');
    // A webhook of the organization and a delivery still pending for the (relayed) payment event;
    // the call event stays unrelayed. No dispatcher runs, so nothing is sent.
    const webhook = (await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, { url: 'https://93.184.216.34/hooks' })).data;
    const [paymentEvent] = await q(`SELECT id FROM outbox_events WHERE type = 'payment.registered' AND payload ->> 'debtorId' = $1`, [debtorId]);
    const delivery = fixtureId('dlv');
    await q('UPDATE outbox_events SET relayed_at = now() WHERE id = $1', [paymentEvent.id]);
    await q('INSERT INTO webhook_deliveries (id, webhook_id, event_id) VALUES ($1, $2, $3)', [delivery, webhook.id, paymentEvent.id]);

    const personal = [
      externalId, 'Zebulon', 'Quillfeather', 'DOC99887766A', 'Zeb Quill', 'Calle Inventada', 'Villaquimera', '28999',
      '611 222 333', '611222333', '622333444', 'zebulon.quillfeather', '911555666', 'promised to pay on Friday', 'callback requested', 'VOUCHER-A',
    ];
    // Every value is somewhere before the erasure (the search can find them), and is served.
    const before = await everyRow();
    for (const value of personal) expect({ value, found: before.includes(value) }).toEqual({ value, found: true });
    expect((await get(`/calls/${call.id}`)).body.data).toMatchObject({ fromNumber: '+34911555666', toNumber: '+34611222333', analysis: expect.any(Object) });

    const erased = await operator.request('POST', `/debtors/${debtorId}/erase`);
    expect(erased.status).toBe(200);
    expect(erased.body).toEqual({ data: { id: debtorId, erasedAt: expect.any(String) } });

    // The database holds none of them, in any column of any table.
    const after = await everyRow();
    const left = personal.filter((value) => after.includes(value));
    expect({ left, lines: after.split('\n').filter((line) => personal.some((value) => line.includes(value))) }).toEqual({ left: [], lines: [] });
    // The tombstone is the keyed hash, not the SHA-256 of the id.
    expect(await q('SELECT external_id_hash, scheme FROM debtor_erasures WHERE portfolio_id = $1', [pf])).toEqual([
      { external_id_hash: tombstones.tombstone(externalId), scheme: 'hmac-sha256' },
    ]);
    expect(after).not.toContain(sha256(externalId));

    // Event payloads keep their keys in their order, personal ones null; the delivery stays pending
    // and will send the scrubbed copy (it reads the payload at each attempt).
    const events = await sql(async (c) =>
      (await c.query(`SELECT type, payload::text AS payload FROM outbox_events WHERE payload ->> 'debtorId' = $1 ORDER BY type`, [debtorId])).rows,
    );
    const callItem = listItem(call);
    expect(events.map((e) => e.type)).toEqual(['call.completed', 'payment.registered', 'promise.created']);
    expect(events[0].payload).toBe(JSON.stringify({ ...callItem, fromNumber: null, toNumber: null }));
    expect(events[1].payload).toBe(JSON.stringify({ ...payment, reference: null }));
    expect(events[2].payload).toBe(JSON.stringify(promise));
    expect(await q('SELECT status FROM webhook_deliveries WHERE id = $1', [delivery])).toEqual([{ status: 'pending' }]);

    // The API serves none of them: the debtor and its debts are gone, its calls, payments and
    // promises stay listed and readable with personal fields null.
    expect((await get(`/debtors/${debtorId}`)).status).toBe(404);
    expect((await get(`/debts/${debtId}`)).status).toBe(404);
    const reads = [
      await get(`/calls/${call.id}`), await get(`/calls?debtorId=${debtorId}`), await get('/calls'),
      await get(`/payments/${payment.id}`), await get(`/payments?debtorId=${debtorId}`), await get('/payments'),
      await get(`/promises?debtorId=${debtorId}`), await get('/promises'), await get('/debtors'), await get('/debts'),
    ];
    for (const res of reads) expect(res.status).toBe(200);
    const served = reads.map((res) => JSON.stringify(res.body)).join('\n');
    expect(personal.filter((value) => served.includes(value))).toEqual([]);
    expect(reads[0].body.data).toEqual({ ...call, fromNumber: null, toNumber: null, analysis: null, updatedAt: expect.any(String) });
    expect(reads[1].body.data).toEqual([{ ...callItem, fromNumber: null, toNumber: null, updatedAt: expect.any(String) }]);
    expect(reads[3].body.data).toEqual({ ...payment, reference: null, updatedAt: expect.any(String) });
    expect(reads[4].body.data).toEqual([{ ...payment, reference: null, updatedAt: expect.any(String) }]);
    expect(reads[6].body.data).toEqual([promise]);
  });

  it('a deleted debtor: its calls, payments and promises stay listed and readable, unchanged', async () => {
    const { debtorId, debtId } = await subject('subject-deleted-1', 'D');
    const { call, payment, promise } = await activity(debtorId, debtId, 'D');
    const callNow = (await get(`/calls/${call.id}`)).body.data;
    expect((await operator.request('DELETE', `/debtors/${debtorId}`)).status).toBe(204);
    expect((await get(`/debtors/${debtorId}`)).status).toBe(404);
    expect((await get(`/calls/${call.id}`)).body).toEqual({ data: callNow });
    const callItem = listItem(callNow);
    expect((await get(`/calls?debtorId=${debtorId}`)).body.data).toEqual([callItem]);
    expect((await get('/calls')).body.data).toContainEqual(callItem);
    expect((await get(`/payments/${payment.id}`)).body).toEqual({ data: payment });
    expect((await get(`/payments?debtorId=${debtorId}`)).body.data).toEqual([payment]);
    expect((await get('/payments')).body.data).toContainEqual(payment);
    expect((await get(`/promises?debtorId=${debtorId}`)).body.data).toEqual([promise]);
    expect((await get('/promises')).body.data).toContainEqual(promise);

    // Erased later: the same records, personal fields null.
    expect((await operator.request('POST', `/debtors/${debtorId}/erase`)).status).toBe(200);
    expect((await get(`/calls/${call.id}`)).body.data).toEqual({ ...callNow, fromNumber: null, toNumber: null, analysis: null, updatedAt: expect.any(String) });
    expect((await get('/calls')).body.data).toContainEqual({ ...callItem, fromNumber: null, toNumber: null, updatedAt: expect.any(String) });
    expect((await get(`/payments/${payment.id}`)).body.data).toEqual({ ...payment, reference: null, updatedAt: expect.any(String) });
    expect((await get('/payments')).body.data).toContainEqual({ ...payment, reference: null, updatedAt: expect.any(String) });
    expect((await get('/promises')).body.data).toContainEqual(promise);
  });

  it('a differently normalised externalId (NFD vs NFC) is refused by the batch after erasure', async () => {
    const nfc = 'Jos\u00e9-2024';
    const nfd = 'Jose\u0301-2024';
    expect(nfd).not.toBe(nfc);
    const { debtorId } = await subject(nfc, 'N');
    expect((await operator.request('POST', `/debtors/${debtorId}/erase`)).status).toBe(200);
    const stored = await q('SELECT external_id_hash FROM debtor_erasures WHERE external_id_hash = $1', [tombstones.tombstone(nfd)]);
    expect(stored).toHaveLength(1);
    expect([sha256(nfc), sha256(nfd)]).not.toContain(stored[0].external_id_hash);
    for (const id of [nfd, nfc]) {
      const res = await batch([{ externalId: id, identityFirstName: 'José', identityDocumentType: 'passport', identityDocumentNumber: 'N-2' }]);
      expect(res.status).toBe(200);
      expect(res.body.data.results[0]).toEqual({
        index: 0, externalId: id, status: 'rejected', id: null, debts: [],
        reason: { code: 'erased_subject', message: expect.any(String), path: 'debtors[0].externalId' },
      });
    }
    expect(await q('SELECT id FROM debtors WHERE external_id IN ($1, $2)', [nfc, nfd])).toEqual([]);
  });

  it('legacy tombstones (SHA-256 of the id as sent, before tombstones were keyed) still refuse, in either normalisation', async () => {
    const nfc = 'Mar\u00eda-legacy';
    const nfd = 'Mari\u0301a-legacy'; // the NFD form of nfc
    const legacyNfd = 'Mari\u0301a-legacy-2';
    await q(`INSERT INTO debtor_erasures (portfolio_id, external_id_hash, scheme) VALUES ($1, $2, 'sha256'), ($1, $3, 'sha256')`, [
      pf, legacyErasureHash(nfc), legacyErasureHash(legacyNfd),
    ]);
    expect(nfd.normalize('NFC')).toBe('Mar\u00eda-legacy');
    for (const id of [nfc, nfd, legacyNfd, legacyNfd.normalize('NFC')]) {
      const res = await batch([{ externalId: id, identityFirstName: 'María', identityDocumentType: 'passport', identityDocumentNumber: 'L-1' }]);
      expect({ id, code: res.body.data.results[0].reason?.code }).toEqual({ id, code: 'erased_subject' });
    }
    const fresh = await batch([{ externalId: 'Mar\u00eda-fresh', identityFirstName: 'María', identityDocumentType: 'passport', identityDocumentNumber: 'L-2' }]);
    expect(fresh.body.data.results[0].status).toBe('created');
  });

  it('an api-core that starts rekeys every legacy tombstone (no unsalted hash stays stored); they still refuse', async () => {
    const legacyId = 'Legacy-rekey-1';
    await q(`INSERT INTO debtor_erasures (portfolio_id, external_id_hash, scheme) VALUES ($1, $2, 'sha256')`, [pf, legacyErasureHash(legacyId)]);
    const extra = await stack.startApiCore();
    try {
      await extra.waitForLog((l) => l.msg === 'legacy erasure tombstones rekeyed', 20_000);
    } finally {
      await extra.stop();
    }
    expect(await q(`SELECT count(*)::int AS n FROM debtor_erasures WHERE scheme = 'sha256'`, [])).toEqual([{ n: 0 }]);
    const stored = await q('SELECT external_id_hash, scheme FROM debtor_erasures WHERE portfolio_id = $1 AND external_id_hash = $2', [pf, tombstones.rekeyed(legacyErasureHash(legacyId))]);
    expect(stored).toEqual([{ external_id_hash: tombstones.rekeyed(legacyErasureHash(legacyId)), scheme: 'hmac-sha256-of-sha256' }]);
    for (const id of [legacyId, 'Mar\u00eda-legacy', 'Mari\u0301a-legacy']) {
      const res = await batch([{ externalId: id, identityFirstName: 'Ana', identityDocumentType: 'passport', identityDocumentNumber: 'L-3' }]);
      expect({ id, code: res.body.data.results[0].reason?.code }).toEqual({ id, code: 'erased_subject' });
    }
  });

  it('an unknown debtor id is 404; a debtor without activity is erased too', async () => {
    expect((await operator.request('POST', `/debtors/${fixtureId('dbt')}/erase`)).status).toBe(404);
    const bare = await sql((c) => insertDebtor(c, { portfolioId: pf, externalId: 'bare-1' }));
    expect((await operator.request('POST', `/debtors/${bare}/erase`)).status).toBe(200);
    expect(await q('SELECT external_id, identity_first_name FROM debtors WHERE id = $1', [bare])).toEqual([{ external_id: null, identity_first_name: null }]);
  });
});
