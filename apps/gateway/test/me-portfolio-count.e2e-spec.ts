import type { MeView, PortfolioView } from '@dc/contracts';
import { createTenant, OperatorClient, Stack, Tenant } from '@dc/testing';

interface Answer {
  status: number;
  body: any;
  requestId: string | null;
}

/**
 * GET /v1/me is answered from each gateway's key cache (docs/adr/0024), but a portfolio's status or
 * a new portfolio must show in `portfolioCount` as soon as the portfolio reads show it: the
 * operator change clears every gateway's cache (auth.invalidate) before it is answered. Two
 * gateways; the operator calls go through the first, /me is cached on both beforehand.
 */
describe('GET /me portfolioCount follows portfolio changes at once, on every gateway', () => {
  let stack: Stack;
  let operator: OperatorClient;

  beforeAll(async () => {
    stack = await Stack.start({ gatewayReplicas: 2 });
    operator = new OperatorClient(stack.operatorUrl);
  });
  afterAll(() => stack?.stop());

  const GATEWAYS = [0, 1];

  async function read(gateway: number, path: string, key: string): Promise<Answer> {
    const res = await fetch(`${stack.gateways[gateway].publicUrl}/public/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id') };
  }

  /** /me and the portfolio list of every gateway, read right after the change was answered. */
  async function expectReach(tenant: Tenant, me: MeView, visible: PortfolioView[]): Promise<void> {
    for (const g of GATEWAYS) {
      // `gateway` names the one that disagreed in a failure's diff.
      const meNow = await read(g, '/me', tenant.key);
      expect({ gateway: g, status: meNow.status, body: meNow.body }).toEqual({ gateway: g, status: 200, body: { data: { ...me, portfolioCount: visible.length } } });
      const list = await read(g, '/portfolios', tenant.key);
      expect({ gateway: g, status: list.status, body: list.body }).toEqual({
        gateway: g,
        status: 200,
        body: { data: visible, pagination: { hasMore: false, limit: 50, nextCursor: null } },
      });
    }
  }

  /** A tenant with two active portfolios whose /me (portfolioCount 2) is cached on both gateways. */
  async function cachedTenant(): Promise<{ tenant: Tenant; me: MeView; portfolios: PortfolioView[] }> {
    const tenant = await createTenant(operator, { name: 'Count Org', portfolios: 2 });
    const list = await read(0, '/portfolios', tenant.key);
    expect(list.status).toBe(200);
    const portfolios = list.body.data as PortfolioView[];
    expect(portfolios.map((p) => p.id)).toEqual(tenant.portfolioIds);
    const first = await read(0, '/me', tenant.key);
    expect(first).toEqual({
      status: 200,
      requestId: expect.stringMatching(/^req_/),
      body: {
        data: {
          apiKey: { id: expect.stringMatching(/^key_/), name: 'rw', keyPrefix: tenant.key.slice(0, 13), scopes: ['read', 'write'], expiresAt: null },
          organization: { id: tenant.organizationId, name: 'Count Org', status: 'active' },
          portfolioCount: 2,
        },
      },
    });
    const me = first.body.data as MeView;
    expect(await read(1, '/me', tenant.key)).toEqual({ ...first, requestId: expect.stringMatching(/^req_/) });
    return { tenant, me, portfolios };
  }

  it('deactivating a portfolio: at once GET /portfolios/{id} is 404, the list has 1 item and /me says portfolioCount 1', async () => {
    const { tenant, me, portfolios } = await cachedTenant();
    const [gone, kept] = portfolios;

    const patched = await operator.expect(200, 'PATCH', `/portfolios/${gone.id}`, { status: 'inactive' });
    expect(patched.data).toEqual({ ...gone, status: 'inactive', updatedAt: expect.any(String) });

    for (const g of GATEWAYS) {
      const res = await read(g, `/portfolios/${gone.id}`, tenant.key);
      expect(res).toEqual({
        status: 404,
        requestId: expect.stringMatching(/^req_/),
        body: { error: { code: 'not_found', message: 'The portfolio does not exist or is not visible to this API key.', requestId: res.requestId } },
      });
    }
    await expectReach(tenant, me, [kept]);
  });

  it('reactivating it, or creating a portfolio, raises portfolioCount at once; an inactive new one does not', async () => {
    const { tenant, me, portfolios } = await cachedTenant();
    const [toggled, kept] = portfolios;

    await operator.expect(200, 'PATCH', `/portfolios/${toggled.id}`, { status: 'inactive' });
    await expectReach(tenant, me, [kept]);

    const reactivated = (await operator.expect(200, 'PATCH', `/portfolios/${toggled.id}`, { status: 'active' })).data as PortfolioView;
    expect(reactivated).toEqual({ ...toggled, updatedAt: expect.any(String) });
    await expectReach(tenant, me, [reactivated, kept]);

    const created = (await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/portfolios`, {
      identityName: 'Portfolio 3',
      identityCurrency: ['EUR'],
    })).data as PortfolioView;
    expect(created).toMatchObject({ organizationId: tenant.organizationId, status: 'active', identityName: 'Portfolio 3' });
    await expectReach(tenant, me, [reactivated, kept, created]);

    await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/portfolios`, {
      identityName: 'Portfolio 4',
      identityCurrency: ['EUR'],
      status: 'inactive',
    });
    await expectReach(tenant, me, [reactivated, kept, created]);
  });
});
