import { generateApiKey } from '@dc/contracts';
import { createTenant, OperatorClient, Stack, Tenant } from '@dc/testing';
import request from 'supertest';

describe('authentication and reach (spec: Authentication)', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    stack = await Stack.start();
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 3 });
    other = await createTenant(operator, { name: 'Other Org' });
  });
  afterAll(() => stack?.stop());

  const get = (path: string, key?: string) => {
    const req = request(stack.publicUrl).get(`/public/v1${path}`);
    return key === undefined ? req : req.set('Authorization', `Bearer ${key}`);
  };

  function expectError(res: request.Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { code, message: expect.any(String), requestId: res.headers['x-request-id'] } });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  }

  describe('401 unauthorized', () => {
    it('without an Authorization header', async () => {
      expectError(await get('/me'), 401, 'unauthorized');
    });

    it('with a non-bearer scheme', async () => {
      expectError(await request(stack.publicUrl).get('/public/v1/me').set('Authorization', `Basic ${tenant.key}`), 401, 'unauthorized');
    });

    it('with a malformed key', async () => {
      expectError(await get('/me', 'svc_live_short'), 401, 'unauthorized');
      expectError(await get('/me', tenant.key.replace('svc_live_', 'svc_prod_')), 401, 'unauthorized');
    });

    it('whatever the body: authentication comes before reading it (bad JSON, wrong type, NUL)', async () => {
      const post = (body: string, type: string, key?: string) => {
        const req = request(stack.publicUrl).post('/public/v1/payments').set('Content-Type', type);
        return (key === undefined ? req : req.set('Authorization', `Bearer ${key}`)).send(body);
      };
      expectError(await post('{"amount":', 'application/json'), 401, 'unauthorized');
      expectError(await post('amount=1', 'text/plain', 'svc_live_short'), 401, 'unauthorized');
      expectError(await post('{"reference":"\\u0000"}', 'application/json'), 401, 'unauthorized');
      // With a valid key the body is judged: 400 validation_error.
      const bad = await post('{"amount":', 'application/json', tenant.key);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toEqual({ code: 'validation_error', message: 'The request body is not valid JSON.', requestId: bad.headers['x-request-id'] });
      const wrongType = await post('amount=1', 'text/plain', tenant.key);
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.error.message).toBe('Content-Type must be application/json.');
    });

    it('with a mistyped key (checksum mismatch) — refused before any lookup', async () => {
      const last = tenant.key.at(-1) === 'a' ? 'b' : 'a';
      const res = await get('/me', tenant.key.slice(0, -1) + last);
      expectError(res, 401, 'unauthorized');
      expect(res.body.error.message).toMatch(/Malformed/);
    });

    it('with a well-formed key that does not exist', async () => {
      const res = await get('/me', generateApiKey('live'));
      expectError(res, 401, 'unauthorized');
      expect(res.body.error.message).toMatch(/not valid/);
    });

    it('with a revoked key, at once (the revocation reaches every gateway cache)', async () => {
      const created = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, {});
      expect((await get('/me', created.data.key)).status).toBe(200); // now cached
      const revoked = await operator.expect(200, 'POST', `/api-keys/${created.data.id}/revoke`);
      expect(revoked.data.revokedAt).toEqual(expect.any(String));
      expect(revoked.data).not.toHaveProperty('key');
      expectError(await get('/me', created.data.key), 401, 'unauthorized');
    });

    it('with an expired key', async () => {
      const created = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, {
        expiresAt: new Date(Date.now() + 1_500).toISOString(),
      });
      expect((await get('/me', created.data.key)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1_600));
      expectError(await get('/me', created.data.key), 401, 'unauthorized');
    });
  });

  describe('403 organization_inactive', () => {
    it('while the organization is suspended, and 200 again once reactivated', async () => {
      const t = await createTenant(operator);
      expect((await get('/me', t.key)).status).toBe(200);
      await operator.expect(200, 'PATCH', `/organizations/${t.organizationId}`, { status: 'suspended' });
      expectError(await get('/me', t.key), 403, 'organization_inactive');
      expectError(await get('/portfolios', t.key), 403, 'organization_inactive');
      await operator.expect(200, 'PATCH', `/organizations/${t.organizationId}`, { status: 'active' });
      expect((await get('/me', t.key)).status).toBe(200);
    });
  });

  describe('GET /me', () => {
    it('describes the key and its organization, never the secret', async () => {
      const res = await get('/me', tenant.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          apiKey: {
            id: expect.stringMatching(/^key_/),
            name: 'rw',
            keyPrefix: tenant.key.slice(0, 13),
            scopes: ['read', 'write'],
            expiresAt: null,
          },
          organization: { id: tenant.organizationId, name: 'Acme Collections', status: 'active' },
          portfolioCount: 3,
        },
      });
      expect(JSON.stringify(res.body)).not.toContain(tenant.key);
    });

    it('a new key has read only; write cannot exist without read', async () => {
      const me = await get('/me', tenant.readKey);
      expect(me.body.data.apiKey.scopes).toEqual(['read']);
      const writeOnly = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { scopes: ['write'] });
      expect(writeOnly.data.scopes).toEqual(['read', 'write']);
    });

    it('works with no active portfolio, and every list is empty', async () => {
      const org = await operator.expect(201, 'POST', '/organizations', { name: 'Empty' });
      const key = await operator.expect(201, 'POST', `/organizations/${org.data.id}/api-keys`, {});
      const me = await get('/me', key.data.key);
      expect(me.status).toBe(200);
      expect(me.body.data.portfolioCount).toBe(0);
      const list = await get('/portfolios', key.data.key);
      expect(list.body).toEqual({ data: [], pagination: { hasMore: false, limit: 50, nextCursor: null } });
    });

    it('a sandbox organization gets svc_test_ keys that expire within 30 days', async () => {
      const org = await operator.expect(201, 'POST', '/organizations', { name: 'Sandbox', sandbox: true });
      const key = await operator.expect(201, 'POST', `/organizations/${org.data.id}/api-keys`, {});
      expect(key.data.key).toMatch(/^svc_test_[0-9A-Za-z]{43}$/);
      expect(key.data.stage).toBe('test');
      const days = (Date.parse(key.data.expiresAt) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(29.9);
      expect(days).toBeLessThanOrEqual(30);
      expect((await get('/me', key.data.key)).status).toBe(200);
    });
  });

  describe('portfolio reach', () => {
    it('GET /portfolios/{id} answers 200 for an own active portfolio', async () => {
      const res = await get(`/portfolios/${tenant.portfolioIds[0]}`, tenant.key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        id: tenant.portfolioIds[0],
        organizationId: tenant.organizationId,
        status: 'active',
        identityName: 'Portfolio 1',
        identityDescription: null,
        identityDebtType: null,
        identityCurrency: ['EUR'],
        identityRegion: null,
        identityTimezone: 'UTC',
        operatingInfoMaxChannels: 1,
        operatingInfoLastActivity: null,
        compliancePiiRedactionEnabled: false,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });
    });

    it("another organization's portfolio is 404, exactly like a missing or malformed one", async () => {
      const foreign = await get(`/portfolios/${other.portfolioIds[0]}`, tenant.key);
      const missing = await get(`/portfolios/pf_01JZZZZZZZZZZZZZZZZZZZZZZZ`, tenant.key);
      const malformed = await get(`/portfolios/not-an-id`, tenant.key);
      for (const res of [foreign, missing, malformed]) expectError(res, 404, 'not_found');
      expect(foreign.body.error.message).toBe(missing.body.error.message);
      expect(malformed.body.error.message).toBe(missing.body.error.message);
    });

    it('a restricted key sees only its portfolios: others are 404 and absent from lists', async () => {
      const restricted = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, {
        portfolioIds: [tenant.portfolioIds[1]],
      });
      const key = restricted.data.key;
      expect(restricted.data.portfolioIds).toEqual([tenant.portfolioIds[1]]);
      expect((await get(`/portfolios/${tenant.portfolioIds[1]}`, key)).status).toBe(200);
      expectError(await get(`/portfolios/${tenant.portfolioIds[0]}`, key), 404, 'not_found');
      const list = await get('/portfolios', key);
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([tenant.portfolioIds[1]]);
      expect((await get('/me', key)).body.data.portfolioCount).toBe(1);

      // Widening the reach takes effect at once.
      await operator.expect(200, 'PATCH', `/api-keys/${restricted.data.id}`, { portfolioIds: [] });
      expect((await get('/portfolios', key)).body.data).toHaveLength(3);
    });

    it('an inactive portfolio is invisible', async () => {
      const t = await createTenant(operator, { portfolios: 2 });
      await operator.expect(200, 'PATCH', `/portfolios/${t.portfolioIds[0]}`, { status: 'inactive' });
      expectError(await get(`/portfolios/${t.portfolioIds[0]}`, t.key), 404, 'not_found');
      expect((await get('/portfolios', t.key)).body.data.map((p: { id: string }) => p.id)).toEqual([t.portfolioIds[1]]);
    });

    it('a key cannot be restricted to another organization’s portfolio', async () => {
      const res = await operator.request('POST', `/organizations/${tenant.organizationId}/api-keys`, { portfolioIds: [other.portfolioIds[0]] });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    });
  });
});
