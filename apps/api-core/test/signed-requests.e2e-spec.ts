import { DEADLINE_HEADER, ErrorCode, REQUEST_ID_HEADER } from '@dc/contracts';
import { loadConfig } from '@dc/config';
import { createTenant, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import { signRequest, SigningKeys } from '@dc/transport';
import { connect, headers, JSONCodec, NatsConnection } from 'nats';
import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';

/**
 * api-core proves its caller (docs/adr/0026): a client that reaches NATS (the shared test NATS has
 * no users, so nothing but the signature stands in its way here) sends api-core requests as the
 * gateway would — a forged caller of another organization, an operator pattern that mints keys —
 * without the gateway's signature, with a wrong one, or replayed after its deadline. Each is
 * refused `unauthorized` before anything is read or written; the same message signed with the key
 * is served, so the signature is what decides.
 */
const json = JSONCodec<any>();

describe('api-core refuses requests not signed by the gateway', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let victim: Tenant;
  let victimKeyId: string;
  let keys: SigningKeys;
  const subject = (pattern: string) => `${stack.env.NATS_SUBJECT_PREFIX}.${pattern}`;

  /** A request in Nest's wire format, as NatsBus sends it; `sign` chooses the key (none: unsigned). */
  async function send(pattern: string, data: unknown, options: { sign?: SigningKeys; deadline?: number; requestId?: string } = {}) {
    const h = headers();
    const requestId = options.requestId ?? `forge_${randomUUID()}`;
    h.set(REQUEST_ID_HEADER, requestId);
    h.set(DEADLINE_HEADER, String(options.deadline ?? Date.now() + 5_000));
    const body = json.encode({ pattern, data, id: randomUUID() });
    if (options.sign) signRequest(options.sign, subject(pattern), h, body);
    const reply = await nc.request(subject(pattern), body, { timeout: 5_000, headers: h });
    return { requestId, packet: json.decode(reply.data), status: reply.headers?.has('x-reply-status') ? reply.headers.get('x-reply-status') : undefined, refused: reply.headers?.get('x-refused') };
  }

  const forgedAuth = () => ({ organizationId: victim.organizationId, apiKeyId: victimKeyId, portfolioIds: [] });
  const batch = (externalId: string) => ({
    portfolioId: victim.portfolioIds[0],
    debtors: [{ externalId, identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'D-1' }],
  });
  const countDebtors = (externalId: string) =>
    withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT count(*)::int AS n FROM debtors WHERE external_id = $1', [externalId])).rows[0].n as number);
  const countKeys = () =>
    withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1', [victim.organizationId])).rows[0].n as number);
  const refusal = (message: string) => ({ id: undefined, isDisposed: true, response: { ok: false, error: { code: ErrorCode.Unauthorized, message } } });
  const NOT_SIGNED = 'The request is not signed by a trusted sender.';

  beforeAll(async () => {
    stack = await Stack.start();
    victim = await createTenant(new OperatorClient(stack.operatorUrl));
    victimKeyId = await withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT id FROM api_keys WHERE organization_id = $1 LIMIT 1', [victim.organizationId])).rows[0].id as string);
    // The key the stack's gateway signs with (the development default under NODE_ENV=test).
    keys = loadConfig('gateway', stack.env).nats.signingKeys;
    nc = await connect({ servers: [stack.env.NATS_URL], name: 'signed-requests-e2e' });
  });
  afterAll(async () => {
    await nc?.drain();
    await stack?.stop();
  });

  it('a forged caller (another organization) without a signature reads nothing: unauthorized, and a warn line without the payload', async () => {
    const { requestId, packet, status, refused } = await send('portfolios.list', { auth: forgedAuth(), input: {} });
    expect(status).toBeUndefined();
    expect(refused).toBe('missing');
    expect(packet).toEqual(refusal(NOT_SIGNED));
    const line = await stack.apiCores[0].waitForLog((l) => l.msg === 'refused: request not signed by a trusted sender' && l.requestId === requestId);
    expect(line).toMatchObject({ level: 'warn', channel: 'portfolios.list', signature: 'missing' });
    expect(JSON.stringify(line)).not.toContain(victim.organizationId);
    expect(stack.apiCores[0].logs.filter((l) => l.requestId === requestId && l.msg !== line.msg)).toEqual([]);
  });

  it('a forged write with no or a wrong signature writes nothing', async () => {
    const externalId = `forged-${randomUUID()}`;
    expect((await send('debtors.batch-write', { auth: forgedAuth(), input: batch(externalId) })).packet).toEqual(refusal(NOT_SIGNED));
    const wrong = await send('debtors.batch-write', { auth: forgedAuth(), input: batch(externalId) }, { sign: { current: randomBytes(32), previous: [] } });
    expect(wrong.packet).toEqual(refusal(NOT_SIGNED));
    expect(await stack.apiCores[0].waitForLog((l) => l.requestId === wrong.requestId)).toMatchObject({ signature: 'invalid' });
    expect(await countDebtors(externalId)).toBe(0);
  });

  it('an operator pattern (API key creation) without a signature mints no key', async () => {
    const before = await countKeys();
    const { packet } = await send('operator.api-keys.create', { organizationId: victim.organizationId, body: { name: 'stolen', scopes: ['read', 'write'] } });
    expect(packet).toEqual(refusal(NOT_SIGNED));
    expect(JSON.stringify(packet)).not.toContain('"key"');
    expect(await countKeys()).toBe(before);
  });

  it('a genuine signed request replayed after its deadline is refused unrun', async () => {
    const externalId = `late-${randomUUID()}`;
    const { requestId, packet } = await send('debtors.batch-write', { auth: forgedAuth(), input: batch(externalId) }, { sign: keys, deadline: Date.now() - 1 });
    expect(packet).toEqual(refusal('The request expired before it could be run.'));
    expect(await stack.apiCores[0].waitForLog((l) => l.msg === 'dropped: the caller had already given up' && l.requestId === requestId)).toMatchObject({ channel: 'debtors.batch-write' });
    expect(await countDebtors(externalId)).toBe(0);
  });

  it('the same request signed with the gateway key is served: the signature is what decides', async () => {
    const externalId = `signed-${randomUUID()}`;
    const { packet } = await send('debtors.batch-write', { auth: forgedAuth(), input: batch(externalId) }, { sign: keys });
    expect(packet.response).toMatchObject({ ok: true, body: { data: { summary: { created: 1, received: 1 } } } });
    expect(await countDebtors(externalId)).toBe(1);
  });

  it('a gateway signing with a key api-core does not hold answers 500 internal_error, never the client\'s 401', async () => {
    const stray = await stack.startGateway({ PORT: '0', INTERNAL_SIGNING_KEY: randomBytes(32).toString('base64') });
    const res = await request(stray.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${victim.key}`);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    await stack.apiCores[0].waitForLog((l) => l.msg === 'refused: request not signed by a trusted sender' && l.signature === 'invalid' && l.channel === 'auth.verify-key');
    // The stack's own gateway, with the right key, is unaffected.
    expect((await request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${victim.key}`)).status).toBe(200);
  });
});
