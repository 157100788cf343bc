import { createTenant, JsonResponse, OPERATOR_TOKEN, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import { SecretBox, webhookSecretContext } from '@dc/webhooks';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

type Client = Parameters<Parameters<typeof withDatabase>[1]>[0];

/** The key api-core seals secrets with in this file (WEBHOOK_SECRET_KEY): 32 random bytes. */
const SECRET_KEY = randomBytes(32);
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const SECRET = /^whsec_[A-Za-z0-9+/]{43}$/;
const PUBLIC_URL = 'https://93.184.216.34/hooks';
const nextUlid = monotonicFactory();
/** Ids in creation order (time-ordered, monotonic), like the services' own. */
const id = (prefix: string) => `${prefix}_${nextUlid()}`;

/**
 * README, Operator API (webhooks); spec: Events, Registration rules; docs/adr/0020.
 * The stack runs without WEBHOOK_ALLOW_PRIVATE_TARGETS (the default: off), except the last block.
 */
describe('operator webhooks', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant; // two portfolios
  let other: Tenant;

  const sql = <T>(fn: (client: Client) => Promise<T>) => withDatabase(stack.databaseUrl, fn);
  const row = async (table: string, rowId: string) => sql(async (c) => (await c.query(`SELECT * FROM ${table} WHERE id = $1`, [rowId])).rows[0]);

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_SECRET_KEY: SECRET_KEY.toString('base64') } });
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 2 });
    other = await createTenant(operator, { name: 'Other Org' });
  });
  afterAll(() => stack?.stop());

  function expectError(res: JsonResponse, status: number, code: string, message?: string | RegExp) {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({
      error: expect.objectContaining({
        code,
        message: message === undefined ? expect.any(String) : typeof message === 'string' ? message : expect.stringMatching(message),
        requestId: res.headers.get('x-request-id'),
      }),
    });
  }

  /** A 400 naming one field in the message and in its only issue. */
  function expectValidation(res: JsonResponse, path: string, message: RegExp) {
    expectError(res, 400, 'validation_error', message);
    expect(res.body.error.issues).toEqual([{ path, message: expect.stringMatching(message) }]);
  }

  const create = (body: Record<string, unknown>, organizationId = tenant.organizationId) =>
    operator.request('POST', `/organizations/${organizationId}/webhooks`, body);
  const createOk = async (body: Record<string, unknown> = {}, organizationId = tenant.organizationId) =>
    (await operator.expect(201, 'POST', `/organizations/${organizationId}/webhooks`, { url: PUBLIC_URL, ...body })).data;

  // Rows the dispatcher would write (it is not part of this stack).
  async function insertEvent(c: Client, type: string, portfolioId = tenant.portfolioIds[0]): Promise<string> {
    const eventId = id('evt');
    await c.query(
      `INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload, relayed_at)
       VALUES ($1, $2, $3, $4, true, '{}'::json, now())`,
      [eventId, tenant.organizationId, portfolioId, type],
    );
    return eventId;
  }

  interface DeliveryFixture {
    status?: string;
    attemptCount?: number;
    series?: number;
    queuedAt?: string | null;
    completedAt?: string | null;
    nextAttemptAt?: string | null;
    createdAt?: string;
    type?: string;
  }

  async function insertDelivery(c: Client, webhookId: string, f: DeliveryFixture = {}): Promise<{ id: string; eventId: string }> {
    const eventId = await insertEvent(c, f.type ?? 'payment.registered');
    const deliveryId = id('dlv');
    await c.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempt_count, series, queued_at, completed_at, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        deliveryId, webhookId, eventId, f.status ?? 'pending', f.attemptCount ?? 0, f.series ?? 1,
        f.queuedAt === undefined ? '2026-01-05T10:00:00.000Z' : f.queuedAt,
        f.completedAt ?? null, f.nextAttemptAt ?? null, f.createdAt ?? '2026-01-05T10:00:00.000Z',
      ],
    );
    return { id: deliveryId, eventId };
  }

  interface AttemptFixture {
    number: number;
    series?: number;
    createdAt: string;
    statusCode: number | null;
    durationMs: number;
    errorClass: string | null;
    error: string | null;
    address: string | null;
  }

  async function insertAttempt(c: Client, deliveryId: string, a: AttemptFixture): Promise<void> {
    await c.query(
      `INSERT INTO webhook_delivery_attempts (id, delivery_id, number, series, status_code, error, error_class, address, duration_ms, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [id('att'), deliveryId, a.number, a.series ?? 1, a.statusCode, a.error, a.errorClass, a.address, a.durationMs, a.createdAt],
    );
  }

  describe('authentication', () => {
    it.each([
      ['no bearer', undefined],
      ['a wrong bearer', 'Bearer not-the-operator-token'],
    ])('%s is 401 unauthorized and registers nothing', async (_name, authorization) => {
      const response = await fetch(`${stack.operatorUrl}/operator/v1/organizations/${tenant.organizationId}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ url: PUBLIC_URL }),
      });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      const list = await fetch(`${stack.operatorUrl}/operator/v1/organizations/${tenant.organizationId}/webhooks`);
      expect(list.status).toBe(401);
      const count = await sql(async (c) => Number((await c.query('SELECT count(*) AS n FROM webhooks')).rows[0].n));
      expect(count).toBe(0);
    });

    it('the operator token is what opens the routes', async () => {
      const response = await fetch(`${stack.operatorUrl}/operator/v1/organizations/${tenant.organizationId}/webhooks`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      expect(response.status).toBe(200);
    });
  });

  describe('registration refuses targets that are not public https (flag off)', () => {
    const publicOnly = 'webhooks are delivered to public hosts only';
    it.each([
      ['plain http', 'http://93.184.216.34/hooks', 'url must use https'],
      ['localhost', 'https://localhost/hooks', `url host localhost is a loopback name: ${publicOnly}`],
      ['IPv4 loopback', 'https://127.0.0.1/', `url host 127.0.0.1 is a loopback address: ${publicOnly}`],
      ['IPv6 loopback', 'https://[::1]/', `url host ::1 is a loopback address: ${publicOnly}`],
      ['RFC 1918 10/8', 'https://10.1.2.3/', `url host 10.1.2.3 is a private address: ${publicOnly}`],
      ['cloud metadata (link-local)', 'https://169.254.169.254/latest/meta-data', `url host 169.254.169.254 is a cloud metadata address: ${publicOnly}`],
      ['RFC 1918 192.168/16', 'https://192.168.0.1/', `url host 192.168.0.1 is a private address: ${publicOnly}`],
      ['credentials in the URL', 'https://user:pw@93.184.216.34/', 'url must not contain credentials (user:pass@)'],
      ['not a URL', 'not a url', 'url is not a valid URL'],
    ])('%s: 400 validation_error naming url with the reason', async (_name, url, reason) => {
      const res = await create({ url });
      expectError(res, 400, 'validation_error', reason);
      expect(res.body.error.issues).toEqual([{ path: 'url', message: reason }]);
    });

    it('nothing was stored for the refused ones', async () => {
      const list = await operator.expect(200, 'GET', `/organizations/${tenant.organizationId}/webhooks`);
      expect(list).toEqual({ data: [], pagination: { hasMore: false, limit: 50, nextCursor: null } });
    });
  });

  describe('registration', () => {
    it('201 with the exact shape; the secret is whsec_ + 43 characters, stored only sealed', async () => {
      const res = await create({ url: PUBLIC_URL });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        data: {
          id: expect.stringMatching(/^whk_[0-9A-Z]{26}$/),
          organizationId: tenant.organizationId,
          url: PUBLIC_URL,
          portfolioIds: [],
          enabled: true,
          failingSince: null,
          disabledAt: null,
          disabledReason: null,
          standardWebhooks: false,
          previousSecretExpiresAt: null,
          createdAt: ISO,
          updatedAt: ISO,
          secret: expect.stringMatching(SECRET),
        },
      });
      const webhook = res.body.data;
      expect(Object.keys(webhook)).toEqual([
        'id', 'organizationId', 'url', 'portfolioIds', 'enabled', 'failingSince', 'disabledAt', 'disabledReason', 'standardWebhooks', 'previousSecretExpiresAt',
        'createdAt', 'updatedAt', 'secret',
      ]);
      expect(webhook.updatedAt).toBe(webhook.createdAt);

      const stored = await row('webhooks', webhook.id);
      expect(stored).toMatchObject({ organization_id: tenant.organizationId, url: PUBLIC_URL, portfolio_ids: [], enabled: true, standard_webhooks: false, deleted_at: null });
      const ciphertext: string = stored.secret_ciphertext;
      expect(ciphertext).not.toContain(webhook.secret);
      expect(ciphertext).not.toContain(webhook.secret.slice('whsec_'.length));
      expect(new SecretBox(SECRET_KEY).open(ciphertext, webhookSecretContext(webhook.id))).toBe(webhook.secret);
      // Sealed with the configured key: another key does not open it; sealed for this webhook: another's context does not.
      expect(() => new SecretBox(randomBytes(32)).open(ciphertext, webhookSecretContext(webhook.id))).toThrow();
      expect(() => new SecretBox(SECRET_KEY).open(ciphertext, webhookSecretContext('whk_other'))).toThrow('sealed secret failed authentication');
    });

    it('a secret sealed before secrets were bound to their webhook (v1) is sealed again, bound, when an api-core starts; a rotation\'s previous secret too', async () => {
      const webhook = await createOk();
      // As v1 sealed it: AES-256-GCM without associated data.
      const keyId = createHash('sha256').update(SECRET_KEY).digest('hex').slice(0, 8);
      const sealedAsV1 = (secret: string) => {
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', SECRET_KEY, iv);
        const packed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
        return `v1.${keyId}.${packed.toString('base64url')}`;
      };
      const legacy = sealedAsV1(webhook.secret);
      // A previous secret still in its overlap (docs/adr/0048), sealed the old way too.
      const previousSecret = `whsec_${randomBytes(32).toString('base64').slice(0, 43)}`;
      await sql((c) => c.query(
        `UPDATE webhooks SET secret_ciphertext = $2, previous_secret_ciphertext = $3, previous_secret_expires_at = now() + interval '1 hour' WHERE id = $1`,
        [webhook.id, legacy, sealedAsV1(previousSecret)],
      ));
      const extra = await stack.startApiCore();
      try {
        await extra.waitForLog((l) => l.msg === 'webhook secrets sealed again with the current key, bound to their webhook', 20_000);
        const stored = await row('webhooks', webhook.id);
        const resealed: string = stored.secret_ciphertext;
        expect(resealed).toMatch(new RegExp(`^v2\\.${keyId}\\.`));
        expect(new SecretBox(SECRET_KEY).open(resealed, webhookSecretContext(webhook.id))).toBe(webhook.secret);
        expect(() => new SecretBox(SECRET_KEY).open(resealed, webhookSecretContext('whk_other'))).toThrow('sealed secret failed authentication');
        expect(stored.previous_secret_ciphertext).toMatch(new RegExp(`^v2\\.${keyId}\\.`));
        expect(new SecretBox(SECRET_KEY).open(stored.previous_secret_ciphertext, webhookSecretContext(webhook.id))).toBe(previousSecret);
      } finally {
        await extra.stop();
      }
    });

    it('each webhook gets its own secret; portfolioIds (deduplicated) and standardWebhooks are kept', async () => {
      const [pf0, pf1] = tenant.portfolioIds;
      const a = await createOk({ portfolioIds: [pf1, pf0, pf1], standardWebhooks: true });
      const b = await createOk();
      expect(a).toMatchObject({ portfolioIds: [pf1, pf0], standardWebhooks: true, enabled: true });
      expect(a.secret).toMatch(SECRET);
      expect(b.secret).toMatch(SECRET);
      expect(a.secret).not.toBe(b.secret);
      const [ra, rb] = [await row('webhooks', a.id), await row('webhooks', b.id)];
      expect(ra.secret_ciphertext).not.toBe(rb.secret_ciphertext);
      expect(new SecretBox(SECRET_KEY).open(rb.secret_ciphertext, webhookSecretContext(b.id))).toBe(b.secret);
    });

    it('an unknown or malformed organization is 404 not_found', async () => {
      expectError(await create({ url: PUBLIC_URL }, id('org')), 404, 'not_found');
      expectError(await create({ url: PUBLIC_URL }, 'org_nope'), 404, 'not_found');
    });

    it('a portfolio of another organization is refused like an API key restriction (400 validation_error on portfolioIds)', async () => {
      const res = await create({ url: PUBLIC_URL, portfolioIds: [tenant.portfolioIds[0], other.portfolioIds[0]] });
      expectError(res, 400, 'validation_error', `portfolioIds contains portfolios that are not of this organization: ${other.portfolioIds[0]}`);
      expect(res.body.error.issues).toEqual([{ message: 'not a portfolio of this organization', path: 'portfolioIds' }]);
      // The same answer as the API-key route gives for the same mistake.
      const key = await operator.request('POST', `/organizations/${tenant.organizationId}/api-keys`, { portfolioIds: [tenant.portfolioIds[0], other.portfolioIds[0]] });
      expect({ status: key.status, code: key.body.error.code, message: key.body.error.message, issues: key.body.error.issues }).toEqual({
        status: res.status, code: res.body.error.code, message: res.body.error.message, issues: res.body.error.issues,
      });
    });

    it('DTO rules: url required and a string, unknown fields (a secret included) refused, types checked', async () => {
      expectValidation(await create({}), 'url', /^url must be a string$/);
      expectValidation(await create({ url: 42 }), 'url', /^url must be a string$/);
      expectValidation(await create({ url: PUBLIC_URL, secret: 'whsec_mine' }), 'secret', /^property secret should not exist/);
      expectValidation(await create({ url: PUBLIC_URL, enabled: false }), 'enabled', /^property enabled should not exist/);
      expectValidation(await create({ url: PUBLIC_URL, standardWebhooks: 'yes' }), 'standardWebhooks', /^standardWebhooks must be a boolean/);
      expectValidation(await create({ url: `${PUBLIC_URL}/${'x'.repeat(2048)}` }), 'url', /^url must be shorter than or equal to 2048 characters$/);
      expectValidation(await create({ url: PUBLIC_URL, portfolioIds: 'pf_x' }), 'portfolioIds', /^portfolioIds must be an array$/);
      expectValidation(await create({ url: PUBLIC_URL, portfolioIds: [7] }), 'portfolioIds', /^each value in portfolioIds must be a string$/);
    });
  });

  describe('list', () => {
    let org: string;
    let ids: string[];

    beforeAll(async () => {
      org = (await createTenant(operator, { name: 'Lister' })).organizationId;
      ids = [];
      for (let i = 0; i < 5; i += 1) ids.push((await createOk({ url: `${PUBLIC_URL}/${i}` }, org)).id);
    });

    it('the live webhooks in id order, without secrets, paged by limit and cursor with no gaps or repeats', async () => {
      const first = await operator.request('GET', `/organizations/${org}/webhooks?limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.data).toHaveLength(2);
      expect(first.body.data[0]).toEqual({
        id: ids[0], organizationId: org, url: `${PUBLIC_URL}/0`, portfolioIds: [], enabled: true, failingSince: null, disabledAt: null, disabledReason: null,
        standardWebhooks: false, previousSecretExpiresAt: null, createdAt: ISO, updatedAt: ISO,
      });
      expect(first.body.pagination).toEqual({ hasMore: true, limit: 2, nextCursor: expect.any(String) });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: JsonResponse = await operator.request('GET', `/organizations/${org}/webhooks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.status).toBe(200);
        expect(JSON.stringify(page.body)).not.toMatch(/whsec_|secret/);
        seen.push(...page.body.data.map((w: { id: string }) => w.id));
        cursor = page.body.pagination.nextCursor;
        expect(page.body.pagination.hasMore).toBe(cursor !== null);
      } while (cursor);
      expect(seen).toEqual(ids);
    });

    it('another organization\'s webhooks are not listed; unknown organization 404; bad limit, cursor or field 400', async () => {
      const mine = await operator.expect(200, 'GET', `/organizations/${tenant.organizationId}/webhooks?limit=100`);
      expect(mine.data.map((w: { id: string }) => w.id)).not.toContain(ids[0]);
      expect(mine.data.every((w: { organizationId: string }) => w.organizationId === tenant.organizationId)).toBe(true);
      expectError(await operator.request('GET', `/organizations/${id('org')}/webhooks`), 404, 'not_found');
      expectValidation(await operator.request('GET', `/organizations/${org}/webhooks?limit=abc`), 'limit', /^limit must be an integer/);
      expectValidation(await operator.request('GET', `/organizations/${org}/webhooks?cursor=nope`), 'cursor', /^cursor is not valid/);
      expectValidation(await operator.request('GET', `/organizations/${org}/webhooks?status=x`), 'status', /^property status should not exist/);
    });
  });

  describe('PATCH /webhooks/{id}', () => {
    it('changes each field; the url is checked again; the secret never comes back', async () => {
      const webhook = await createOk();
      const [pf0] = tenant.portfolioIds;
      const patch = (body: Record<string, unknown>) => operator.request('PATCH', `/webhooks/${webhook.id}`, body);
      const base = { ...webhook };
      delete base.secret;

      const url = await patch({ url: 'https://93.184.216.34/v2' });
      expect(url.status).toBe(200);
      expect(url.body).toEqual({ data: { ...base, url: 'https://93.184.216.34/v2', updatedAt: ISO } });
      expect(Date.parse(url.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(webhook.updatedAt));

      expectValidation(await patch({ url: 'http://93.184.216.34/v3' }), 'url', /^url must use https$/);
      expectValidation(await patch({ url: 'https://10.0.0.1/' }), 'url', /^url host 10\.0\.0\.1 is a private address/);
      expect((await row('webhooks', webhook.id)).url).toBe('https://93.184.216.34/v2');

      const restricted = await patch({ portfolioIds: [pf0] });
      expect(restricted.status).toBe(200);
      expect(restricted.body.data).toMatchObject({ portfolioIds: [pf0], url: 'https://93.184.216.34/v2' });
      const refused = await patch({ portfolioIds: [other.portfolioIds[0]] });
      expectError(refused, 400, 'validation_error');
      expect(refused.body.error.issues).toEqual([{ message: 'not a portfolio of this organization', path: 'portfolioIds' }]);
      expect((await patch({ portfolioIds: [] })).body.data.portfolioIds).toEqual([]);

      expect((await patch({ standardWebhooks: true })).body.data).toMatchObject({ standardWebhooks: true, enabled: true });
      // Disabling records when and why (docs/adr/0048).
      const off = (await patch({ enabled: false })).body.data;
      expect(off).toMatchObject({ standardWebhooks: true, enabled: false, failingSince: null, disabledAt: ISO, disabledReason: 'disabled by the operator' });
      expect(off.disabledAt).toBe(off.updatedAt);
      // Disabled again (here over an automatic disabling): the first disabling's time and reason stay.
      await sql((c) => c.query(`UPDATE webhooks SET failing_since = '2026-01-05T10:00:00Z', disabled_reason = 'failing' WHERE id = $1`, [webhook.id]));
      expect((await patch({ enabled: false })).body.data).toMatchObject({
        enabled: false, failingSince: '2026-01-05T10:00:00.000Z', disabledAt: off.disabledAt, disabledReason: 'failing',
      });
      // Enabling clears all three (base: as registered, all null).
      const on = await patch({ enabled: true });
      expect(on.body).toEqual({
        data: { ...base, url: 'https://93.184.216.34/v2', portfolioIds: [], enabled: true, standardWebhooks: true, updatedAt: ISO },
      });
      expect(JSON.stringify(on.body)).not.toContain('whsec_');
      // The secret is untouched by changes.
      expect(new SecretBox(SECRET_KEY).open((await row('webhooks', webhook.id)).secret_ciphertext, webhookSecretContext(webhook.id))).toBe(webhook.secret);

      expectValidation(await patch({ enabled: 'no' }), 'enabled', /^enabled must be a boolean/);
      expectValidation(await patch({ url: 7 }), 'url', /^url must be a string$/);
      expectValidation(await patch({ portfolioIds: 'pf_x' }), 'portfolioIds', /^portfolioIds must be an array$/);
      expectValidation(await patch({ secret: 'whsec_x' }), 'secret', /^property secret should not exist/);
    });

    it('disabling cancels the webhook\'s pending deliveries (and only those) in the same change', async () => {
      const webhook = await createOk();
      const bystander = await createOk();
      const [pending1, pending2, done, elsewhere] = await sql(async (c) => [
        await insertDelivery(c, webhook.id, { status: 'pending', attemptCount: 2, nextAttemptAt: '2026-01-05T10:03:00.000Z' }),
        await insertDelivery(c, webhook.id, { status: 'pending', queuedAt: null }),
        await insertDelivery(c, webhook.id, { status: 'succeeded', attemptCount: 1, completedAt: '2026-01-05T10:00:01.000Z' }),
        await insertDelivery(c, bystander.id, { status: 'pending' }),
      ]);
      const before = Date.now();
      const res = await operator.request('PATCH', `/webhooks/${webhook.id}`, { enabled: false });
      expect(res.status).toBe(200);
      for (const d of [pending1, pending2]) {
        const r = await row('webhook_deliveries', d.id);
        expect(r.status).toBe('cancelled');
        expect(r.completed_at).toBeInstanceOf(Date);
        expect(r.completed_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(r.next_attempt_at).toBeNull();
      }
      expect(await row('webhook_deliveries', done.id)).toMatchObject({ status: 'succeeded', completed_at: new Date('2026-01-05T10:00:01.000Z') });
      expect(await row('webhook_deliveries', elsewhere.id)).toMatchObject({ status: 'pending', completed_at: null });
      // Enabling again does not revive cancelled deliveries.
      await operator.expect(200, 'PATCH', `/webhooks/${webhook.id}`, { enabled: true });
      expect((await row('webhook_deliveries', pending1.id)).status).toBe('cancelled');
    });

    it('unknown or malformed ids are 404', async () => {
      expectError(await operator.request('PATCH', `/webhooks/${id('whk')}`, { enabled: false }), 404, 'not_found');
      expectError(await operator.request('PATCH', '/webhooks/whk_nope', { enabled: false }), 404, 'not_found');
    });
  });

  describe('DELETE /webhooks/{id}', () => {
    it('204 without a body, soft delete, pending deliveries cancelled; then 404 everywhere and gone from the list', async () => {
      const webhook = await createOk();
      const [pending, failed] = await sql(async (c) => [
        await insertDelivery(c, webhook.id, { status: 'pending' }),
        await insertDelivery(c, webhook.id, { status: 'failed', attemptCount: 5, completedAt: '2026-01-05T10:06:00.000Z' }),
      ]);
      const res = await operator.request('DELETE', `/webhooks/${webhook.id}`);
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();

      const stored = await row('webhooks', webhook.id);
      expect(stored.deleted_at).toBeInstanceOf(Date);
      expect(await row('webhook_deliveries', pending.id)).toMatchObject({ status: 'cancelled', completed_at: expect.any(Date) });
      expect((await row('webhook_deliveries', failed.id)).status).toBe('failed');

      expectError(await operator.request('DELETE', `/webhooks/${webhook.id}`), 404, 'not_found');
      expectError(await operator.request('PATCH', `/webhooks/${webhook.id}`, { enabled: true }), 404, 'not_found');
      expectError(await operator.request('GET', `/webhooks/${webhook.id}/deliveries`), 404, 'not_found');
      const list = await operator.expect(200, 'GET', `/organizations/${tenant.organizationId}/webhooks?limit=100`);
      expect(list.data.map((w: { id: string }) => w.id)).not.toContain(webhook.id);
      // The row stays deleted (not re-enabled by the refused PATCH).
      expect(await row('webhooks', webhook.id)).toMatchObject({ enabled: true, deleted_at: stored.deleted_at });

      // A finished delivery of a deleted webhook cannot be redelivered.
      expectError(await operator.request('POST', `/deliveries/${failed.id}/redeliver`), 409, 'invalid_state_transition',
        `delivery ${failed.id} cannot be redelivered: its webhook is deleted`);
    });

    it('unknown or malformed ids are 404', async () => {
      expectError(await operator.request('DELETE', `/webhooks/${id('whk')}`), 404, 'not_found');
      expectError(await operator.request('DELETE', '/webhooks/nope'), 404, 'not_found');
    });
  });

  describe('delivery log', () => {
    let webhook: { id: string };
    let deliveries: { id: string; eventId: string }[]; // oldest first
    const types = ['payment.registered', 'promise.created', 'call.completed'];
    const attempts: AttemptFixture[] = [
      { number: 1, createdAt: '2026-01-05T10:00:00.250Z', statusCode: 500, durationMs: 120, errorClass: 'http_status', error: 'HTTP 500', address: '93.184.216.34' },
      { number: 2, createdAt: '2026-01-05T10:01:31.000Z', statusCode: null, durationMs: 10000, errorClass: 'timeout', error: 'no answer within 10 s', address: '93.184.216.34' },
      { number: 3, createdAt: '2026-01-05T10:03:02.500Z', statusCode: null, durationMs: 3, errorClass: 'dns', error: 'ENOTFOUND', address: null },
      { number: 4, series: 2, createdAt: '2026-01-06T08:00:00.000Z', statusCode: 204, durationMs: 45, errorClass: null, error: null, address: '2001:db8::1' },
    ];

    beforeAll(async () => {
      webhook = await createOk();
      const neighbour = await createOk();
      deliveries = await sql(async (c) => {
        const made: { id: string; eventId: string }[] = [];
        for (let i = 0; i < 7; i += 1) {
          made.push(await insertDelivery(c, webhook.id, {
            type: types[i % 3],
            status: 'failed',
            attemptCount: i === 3 ? 4 : 0,
            createdAt: `2026-01-05T10:00:0${i}.000Z`,
            completedAt: '2026-01-05T10:06:00.000Z',
          }));
          if (i === 2) await insertDelivery(c, neighbour.id, { status: 'failed' }); // another webhook's, in between
        }
        // Inserted out of order: the log shows them by number.
        for (const a of [attempts[2], attempts[0], attempts[3], attempts[1]]) await insertAttempt(c, made[3].id, a);
        await insertAttempt(c, made[6].id, attempts[0]);
        return made;
      });
    });

    it('newest first, each delivery with its type and attempts oldest first, all fields', async () => {
      const res = await operator.request('GET', `/webhooks/${webhook.id}/deliveries`);
      expect(res.status).toBe(200);
      expect(res.body.pagination).toEqual({ hasMore: false, limit: 50, nextCursor: null });
      expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([...deliveries].reverse().map((d) => d.id));
      const withAttempts = res.body.data.find((d: { id: string }) => d.id === deliveries[3].id);
      expect(withAttempts).toEqual({
        id: deliveries[3].id,
        webhookId: webhook.id,
        eventId: deliveries[3].eventId,
        type: 'payment.registered',
        status: 'failed',
        attemptCount: 4,
        series: 1,
        nextAttemptAt: null,
        createdAt: '2026-01-05T10:00:03.000Z',
        completedAt: '2026-01-05T10:06:00.000Z',
        attempts: attempts.map((a) => ({
          number: a.number,
          series: a.series ?? 1,
          createdAt: a.createdAt,
          statusCode: a.statusCode,
          durationMs: a.durationMs,
          errorClass: a.errorClass,
          error: a.error,
          address: a.address,
        })),
      });
      expect(Object.keys(withAttempts)).toEqual([
        'id', 'webhookId', 'eventId', 'type', 'status', 'attemptCount', 'series', 'nextAttemptAt', 'createdAt', 'completedAt', 'attempts',
      ]);
      expect(Object.keys(withAttempts.attempts[0])).toEqual(['number', 'series', 'createdAt', 'statusCode', 'durationMs', 'errorClass', 'error', 'address']);
      expect(res.body.data.map((d: { type: string }) => d.type)).toEqual([0, 1, 2, 3, 4, 5, 6].reverse().map((i) => types[i % 3]));
      expect(res.body.data[0].attempts).toHaveLength(1);
      expect(res.body.data[1].attempts).toEqual([]);
    });

    it('pages by limit and cursor, continuing below the last id: no duplicates, no gaps', async () => {
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page: JsonResponse = await operator.request('GET', `/webhooks/${webhook.id}/deliveries?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.status).toBe(200);
        expect(page.body.pagination.limit).toBe(3);
        pages.push(page.body.data.map((d: { id: string }) => d.id));
        cursor = page.body.pagination.nextCursor;
        expect(page.body.pagination.hasMore).toBe(cursor !== null);
      } while (cursor);
      const newestFirst = [...deliveries].reverse().map((d) => d.id);
      expect(pages).toEqual([newestFirst.slice(0, 3), newestFirst.slice(3, 6), newestFirst.slice(6)]);
    });

    it('unknown or malformed webhook 404; bad limit or cursor 400', async () => {
      expectError(await operator.request('GET', `/webhooks/${id('whk')}/deliveries`), 404, 'not_found');
      expectError(await operator.request('GET', '/webhooks/x/deliveries'), 404, 'not_found');
      expectValidation(await operator.request('GET', `/webhooks/${webhook.id}/deliveries?limit=1.5`), 'limit', /^limit must be an integer/);
      expectValidation(await operator.request('GET', `/webhooks/${webhook.id}/deliveries?cursor=abc`), 'cursor', /^cursor is not valid/);
    });
  });

  describe('POST /deliveries/{id}/redeliver', () => {
    let webhook: { id: string };

    beforeAll(async () => {
      webhook = await createOk();
    });

    it('202: a failed delivery starts series 2 at its attempt count, unqueued, due now; same delivery id', async () => {
      const delivery = await sql(async (c) => {
        const d = await insertDelivery(c, webhook.id, {
          type: 'promise.created', status: 'failed', attemptCount: 5, completedAt: '2026-01-05T10:06:00.000Z', createdAt: '2026-01-05T10:00:00.000Z',
        });
        await insertAttempt(c, d.id, { number: 5, createdAt: '2026-01-05T10:06:00.000Z', statusCode: 503, durationMs: 80, errorClass: 'http_status', error: 'HTTP 503', address: '93.184.216.34' });
        return d;
      });
      const before = Date.now();
      const res = await operator.request('POST', `/deliveries/${delivery.id}/redeliver`);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        data: {
          id: delivery.id,
          webhookId: webhook.id,
          eventId: delivery.eventId,
          type: 'promise.created',
          status: 'pending',
          attemptCount: 5,
          series: 2,
          nextAttemptAt: ISO,
          createdAt: '2026-01-05T10:00:00.000Z',
          completedAt: null,
          attempts: [{ number: 5, series: 1, createdAt: '2026-01-05T10:06:00.000Z', statusCode: 503, durationMs: 80, errorClass: 'http_status', error: 'HTTP 503', address: '93.184.216.34' }],
        },
      });
      expect(Date.parse(res.body.data.nextAttemptAt)).toBeGreaterThanOrEqual(before - 1000);
      const stored = await row('webhook_deliveries', delivery.id);
      expect(stored).toMatchObject({ status: 'pending', series: 2, series_start: 5, attempt_count: 5, queued_at: null, completed_at: null });
      expect(stored.next_attempt_at).toBeInstanceOf(Date);

      // Now pending: a second redelivery is refused until the series ends.
      expectError(await operator.request('POST', `/deliveries/${delivery.id}/redeliver`), 409, 'invalid_state_transition',
        `delivery ${delivery.id} is still being attempted`);
      expect(await row('webhook_deliveries', delivery.id)).toMatchObject({ series: 2, series_start: 5 });
    });

    it.each(['succeeded', 'cancelled'])('a %s delivery may be redelivered too', async (status) => {
      const delivery = await sql((c) => insertDelivery(c, webhook.id, { status, attemptCount: 2, series: 3, completedAt: '2026-01-05T10:06:00.000Z' }));
      const res = await operator.request('POST', `/deliveries/${delivery.id}/redeliver`);
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ id: delivery.id, status: 'pending', series: 4, attemptCount: 2, completedAt: null });
      expect(await row('webhook_deliveries', delivery.id)).toMatchObject({ status: 'pending', series: 4, series_start: 2, queued_at: null });
    });

    it('a pending delivery is 409 invalid_state_transition and is left as it was', async () => {
      const delivery = await sql((c) => insertDelivery(c, webhook.id, { status: 'pending', attemptCount: 1, nextAttemptAt: '2026-01-05T10:01:30.000Z' }));
      expectError(await operator.request('POST', `/deliveries/${delivery.id}/redeliver`), 409, 'invalid_state_transition',
        `delivery ${delivery.id} is still being attempted`);
      expect(await row('webhook_deliveries', delivery.id)).toMatchObject({
        status: 'pending', series: 1, series_start: 0, queued_at: new Date('2026-01-05T10:00:00.000Z'), next_attempt_at: new Date('2026-01-05T10:01:30.000Z'),
      });
    });

    it('a delivery of a disabled webhook is 409 with that reason', async () => {
      const disabled = await createOk();
      const delivery = await sql((c) => insertDelivery(c, disabled.id, { status: 'failed', attemptCount: 5, completedAt: '2026-01-05T10:06:00.000Z' }));
      await operator.expect(200, 'PATCH', `/webhooks/${disabled.id}`, { enabled: false });
      expectError(await operator.request('POST', `/deliveries/${delivery.id}/redeliver`), 409, 'invalid_state_transition',
        `delivery ${delivery.id} cannot be redelivered: its webhook is disabled`);
      expect(await row('webhook_deliveries', delivery.id)).toMatchObject({ status: 'failed', series: 1 });
    });

    it('an unknown or malformed delivery is 404', async () => {
      expectError(await operator.request('POST', `/deliveries/${id('dlv')}/redeliver`), 404, 'not_found');
      expectError(await operator.request('POST', '/deliveries/dlv_x/redeliver'), 404, 'not_found');
    });
  });

  describe('POST /webhooks/{id}/rotate-secret (docs/adr/0048)', () => {
    const DAY_MS = 86_400_000;
    const OVERLAP_MESSAGE = /^overlapSeconds must be an integer from 0 to 604800 \(7 days\)$/;
    const rotate = (webhookId: string, body?: Record<string, unknown>) => operator.request('POST', `/webhooks/${webhookId}/rotate-secret`, body);
    const open = (ciphertext: string, webhookId: string) => new SecretBox(SECRET_KEY).open(ciphertext, webhookSecretContext(webhookId));
    /** The registration answer without its secret: the view every other route shows. */
    const viewOf = (created: Record<string, unknown>) => Object.fromEntries(Object.entries(created).filter(([key]) => key !== 'secret'));

    it('200 with the view and a new secret, shown once; the old secret becomes the previous one for 24 h by default (no body)', async () => {
      const webhook = await createOk();
      const before = Date.now();
      const res = await rotate(webhook.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { ...viewOf(webhook), previousSecretExpiresAt: ISO, updatedAt: ISO, secret: expect.stringMatching(SECRET) } });
      const rotated = res.body.data;
      // The registration's fields in the registration's order, the secret last.
      expect(Object.keys(rotated)).toEqual(Object.keys(webhook));
      expect(rotated.secret).not.toBe(webhook.secret);
      expect(Date.parse(rotated.updatedAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(rotated.previousSecretExpiresAt) - Date.parse(rotated.updatedAt)).toBe(DAY_MS);

      // Stored sealed for the webhook: the new one current, the old one previous, with its expiry.
      const stored = await row('webhooks', webhook.id);
      expect(open(stored.secret_ciphertext, webhook.id)).toBe(rotated.secret);
      expect(open(stored.previous_secret_ciphertext, webhook.id)).toBe(webhook.secret);
      expect(stored.previous_secret_expires_at).toEqual(new Date(rotated.previousSecretExpiresAt));
      for (const secret of [webhook.secret, rotated.secret]) {
        expect(JSON.stringify(stored)).not.toContain(secret);
        expect(JSON.stringify(stored)).not.toContain(secret.slice('whsec_'.length));
      }

      // The list and a change show the rotation state, never a secret.
      const list = await operator.expect(200, 'GET', `/organizations/${tenant.organizationId}/webhooks?limit=100`);
      expect(list.data.find((w: { id: string }) => w.id === webhook.id)).toEqual(viewOf(rotated));
      expect(JSON.stringify(list)).not.toContain('whsec_');
      const patched = await operator.expect(200, 'PATCH', `/webhooks/${webhook.id}`, { standardWebhooks: true });
      expect(patched.data).toEqual({ ...viewOf(rotated), standardWebhooks: true, updatedAt: ISO });
      expect(JSON.stringify(patched)).not.toContain('whsec_');
    });

    it('a second rotation during the overlap: the then-current secret becomes the previous one, the one before it is gone', async () => {
      const webhook = await createOk();
      const first = (await operator.expect(200, 'POST', `/webhooks/${webhook.id}/rotate-secret`, { overlapSeconds: 3600 })).data;
      expect(Date.parse(first.previousSecretExpiresAt) - Date.parse(first.updatedAt)).toBe(3_600_000);
      const second = (await operator.expect(200, 'POST', `/webhooks/${webhook.id}/rotate-secret`, { overlapSeconds: 600 })).data;
      expect(new Set([webhook.secret, first.secret, second.secret]).size).toBe(3);
      expect(Date.parse(second.previousSecretExpiresAt) - Date.parse(second.updatedAt)).toBe(600_000);
      const stored = await row('webhooks', webhook.id);
      expect(open(stored.secret_ciphertext, webhook.id)).toBe(second.secret);
      expect(open(stored.previous_secret_ciphertext, webhook.id)).toBe(first.secret);
      expect(JSON.stringify(stored)).not.toContain(webhook.secret);
    });

    it('overlapSeconds 0 keeps no previous secret (an earlier one in its overlap is dropped too); 604800 is the longest overlap', async () => {
      const webhook = await createOk();
      await operator.expect(200, 'POST', `/webhooks/${webhook.id}/rotate-secret`, {});
      const now = await rotate(webhook.id, { overlapSeconds: 0 });
      expect(now.status).toBe(200);
      expect(now.body.data).toMatchObject({ previousSecretExpiresAt: null, secret: expect.stringMatching(SECRET) });
      const stored = await row('webhooks', webhook.id);
      expect(stored).toMatchObject({ previous_secret_ciphertext: null, previous_secret_expires_at: null });
      expect(open(stored.secret_ciphertext, webhook.id)).toBe(now.body.data.secret);

      const longest = (await operator.expect(200, 'POST', `/webhooks/${webhook.id}/rotate-secret`, { overlapSeconds: 604_800 })).data;
      expect(Date.parse(longest.previousSecretExpiresAt) - Date.parse(longest.updatedAt)).toBe(7 * DAY_MS);
      expect(open((await row('webhooks', webhook.id)).previous_secret_ciphertext, webhook.id)).toBe(now.body.data.secret);
    });

    it('a disabled webhook may rotate its secret; it stays disabled', async () => {
      const webhook = await createOk();
      await operator.expect(200, 'PATCH', `/webhooks/${webhook.id}`, { enabled: false });
      const res = await rotate(webhook.id, { overlapSeconds: 60 });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: webhook.id, enabled: false, secret: expect.stringMatching(SECRET) });
    });

    it('overlapSeconds that is not an integer from 0 to 604800, or an unknown field: 400 validation_error, nothing changes', async () => {
      const webhook = await createOk();
      const stored = await row('webhooks', webhook.id);
      for (const overlapSeconds of [-1, 604_801, 1.5, '60', true, 1e12]) {
        expectValidation(await rotate(webhook.id, { overlapSeconds }), 'overlapSeconds', OVERLAP_MESSAGE);
      }
      expectValidation(await rotate(webhook.id, { overlap: 60 }), 'overlap', /^property overlap should not exist/);
      expectValidation(await rotate(webhook.id, { secret: 'whsec_mine' }), 'secret', /^property secret should not exist/);
      expect(await row('webhooks', webhook.id)).toEqual(stored);
    });

    it('an unknown, malformed or deleted webhook is 404 not_found', async () => {
      expectError(await rotate(id('whk')), 404, 'not_found');
      expectError(await rotate('whk_nope'), 404, 'not_found');
      expectError(await rotate(`${id('dlv')}`, {}), 404, 'not_found');
      const webhook = await createOk();
      expect((await operator.request('DELETE', `/webhooks/${webhook.id}`)).status).toBe(204);
      const stored = await row('webhooks', webhook.id);
      expectError(await rotate(webhook.id, { overlapSeconds: 60 }), 404, 'not_found');
      expect(await row('webhooks', webhook.id)).toEqual(stored);
    });
  });

  describe('with WEBHOOK_ALLOW_PRIVATE_TARGETS (development and tests only)', () => {
    let devStack: Stack;

    beforeAll(async () => {
      devStack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    });
    afterAll(() => devStack?.stop());

    it('http and private targets are accepted', async () => {
      const dev = new OperatorClient(devStack.operatorUrl);
      const org = (await dev.expect(201, 'POST', '/organizations', { name: 'Dev' })).data.id;
      for (const url of ['http://127.0.0.1:8080/hook', 'https://10.1.2.3/']) {
        const created = await dev.expect(201, 'POST', `/organizations/${org}/webhooks`, { url });
        expect(created.data).toMatchObject({ url, enabled: true, secret: expect.stringMatching(SECRET) });
      }
    });
  });
});
