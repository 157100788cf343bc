import { RUNTIME_PATCH_NAMES } from '@dc/config';
import { createTenant, OperatorClient, Stack, Tenant } from '@dc/testing';
import request from 'supertest';

/**
 * The runtime patches (docs/runtime-patches.md) only save CPU and memory: two stacks over one
 * database, one with every patch on and one with RUNTIME_PATCHES_OFF=all, answer the same requests
 * with the same bytes — reads (rows as bytes, compiled query parsing), a valid batch (compiled body
 * check) and an invalid one (class-validator's issues) — and each service names what it runs with.
 */
describe('runtime patches: every one can be turned off, and the answers stay the same', () => {
  let patched: Stack;
  let unpatched: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    patched = await Stack.start({ env: { RUNTIME_PATCHES_OFF: '' } });
    unpatched = await Stack.start({
      env: { RUNTIME_PATCHES_OFF: 'all' },
      database: { url: patched.databaseUrl, appUrl: patched.env.DATABASE_URL },
    });
    tenant = await createTenant(new OperatorClient(patched.operatorUrl));
  });
  afterAll(async () => {
    await unpatched?.stop();
    await patched?.stop();
  });

  const patchLine = (stack: Stack, app: 'gateway' | 'api-core') => {
    const service = app === 'gateway' ? stack.gateways[0].process : stack.apiCores[0];
    return service.waitForLog((line) => typeof line.msg === 'string' && line.msg.startsWith('runtime patches on:'));
  };

  it('each service logs the patches it installed at start-up, and none with RUNTIME_PATCHES_OFF=all', async () => {
    const gatewayPatches = ['v8-heap-flags', 'nats-write-coalescing', 'validation-metadata-cache', 'compiled-validation'];
    const apiCorePatches = ['v8-heap-flags', 'wasm-liftoff-only', 'pg-binary-columns', 'nats-write-coalescing'];
    expect((await patchLine(patched, 'gateway')).runtimePatches).toEqual({ on: gatewayPatches, off: [] });
    expect((await patchLine(patched, 'api-core')).runtimePatches).toEqual({ on: apiCorePatches, off: [] });
    expect((await patchLine(unpatched, 'gateway')).runtimePatches).toEqual({ on: [], off: gatewayPatches });
    const apiCoreOff = await patchLine(unpatched, 'api-core');
    expect(apiCoreOff.runtimePatches).toEqual({ on: [], off: apiCorePatches });
    expect(apiCoreOff.msg).toBe(`runtime patches on: none; off (RUNTIME_PATCHES_OFF): ${apiCorePatches.join(', ')}`);
    // Every name a service uses is one RUNTIME_PATCHES_OFF accepts.
    expect(RUNTIME_PATCH_NAMES).toEqual(expect.arrayContaining([...gatewayPatches, ...apiCorePatches]));
  });

  it('a batch written through either stack, then every debtor page and a debtor read through both, byte for byte', async () => {
    const pf = tenant.portfolioIds[0];
    const batch = (stack: Stack, from: number) =>
      request(stack.publicUrl)
        .post(`/public/v1/portfolios/${pf}/debtors`)
        .set('Authorization', `Bearer ${tenant.key}`)
        .send({
          debtors: Array.from({ length: 30 }, (_, i) => ({
            externalId: `rp-${from + i}`,
            identityFirstName: `Núñez ${from + i} "quoted" \\ ✓`,
            identityDocumentType: 'national_id',
            identityDocumentNumber: `DOC${from + i}`,
            contactInfoPhoneNumbers: [{ phone: `+3461234${String(from + i).padStart(4, '0')}` }],
            debts: [{ externalId: `rp-debt-${from + i}`, totalAmount: 100 + i, currency: 'EUR' }],
          })),
        });
    const first = await batch(patched, 0);
    const second = await batch(unpatched, 30);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.body.data.results.map((r: { status: string }) => r.status)).toEqual(Array(30).fill('created'));
    expect(second.body.data.results.map((r: { status: string }) => r.status)).toEqual(first.body.data.results.map((r: { status: string }) => r.status));

    const page = (stack: Stack, query: string) =>
      request(stack.publicUrl).get(`/public/v1/debtors${query}`).set('Authorization', `Bearer ${tenant.key}`).buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    const pageQuery = (after: string | null) => `?portfolioId=${pf}&limit=25${after ? `&cursor=${encodeURIComponent(after)}` : ''}`;
    let cursor: string | null = null;
    let pages = 0;
    do {
      const [a, b]: request.Response[] = await Promise.all([page(patched, pageQuery(cursor)), page(unpatched, pageQuery(cursor))]);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect((b.body as Buffer).toString('utf8')).toBe((a.body as Buffer).toString('utf8'));
      cursor = (JSON.parse((a.body as Buffer).toString('utf8')) as { pagination: { nextCursor: string | null } }).pagination.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    const id = JSON.parse((await page(patched, `?portfolioId=${pf}&limit=1`)).body.toString('utf8')).data[0].id;
    const one = (stack: Stack) => request(stack.publicUrl).get(`/public/v1/debtors/${id}`).set('Authorization', `Bearer ${tenant.key}`);
    const [a, b] = await Promise.all([one(patched), one(unpatched)]);
    expect(a.status).toBe(200);
    expect(b.text).toBe(a.text);
  });

  it('an invalid body and an invalid query get the same error through both (only the request id differs)', async () => {
    const pf = tenant.portfolioIds[0];
    const invalidBatch = (stack: Stack) =>
      request(stack.publicUrl)
        .post(`/public/v1/portfolios/${pf}/debtors`)
        .set('Authorization', `Bearer ${tenant.key}`)
        .send({ debtors: [{ externalId: 'x', identityFirstName: '', identityDocumentType: 'national_id', debts: [{ totalAmount: -1, currency: 'EURO' }], extra: true }] });
    const invalidQuery = (stack: Stack) => request(stack.publicUrl).get('/public/v1/debtors?limit=abc&status=nope').set('Authorization', `Bearer ${tenant.key}`);
    for (const send of [invalidBatch, invalidQuery]) {
      const [a, b] = await Promise.all([send(patched), send(unpatched)]);
      expect(a.status).toBe(400);
      expect(b.status).toBe(400);
      const withoutId = (body: { error: Record<string, unknown> }) => ({ ...body.error, requestId: undefined });
      expect(withoutId(b.body)).toEqual(withoutId(a.body));
      expect(a.body.error.code).toBe('validation_error');
    }
  });
});
