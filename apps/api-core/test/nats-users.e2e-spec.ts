import { createTenant, eventually, OperatorClient, PrivateNats, ServiceProcess, Stack } from '@dc/testing';
import { natsInboxPrefix, renderNatsConf } from '@dc/transport';
import { connect, ConnectionOptions, ErrorCode as NatsErrorCode, NatsConnection, NatsError, Status } from 'nats';
import { randomBytes } from 'node:crypto';
import request from 'supertest';

/**
 * The broker's half of docs/adr/0026: a private nats-server (never the shared one on 4222) runs
 * with the authorization block `npm run nats:config` renders from the contract registry, and test
 * passwords. Without credentials nothing connects; the gateway's user may call api-core's patterns
 * and read only its own replies; api-core's user may only serve its patterns in its queue group
 * and answer; and the real apps, each with its own user, serve requests end to end.
 */
const prefix = `t${process.pid}${randomBytes(3).toString('hex')}`;
// nats-server parses an expanded $VARIABLE as a config token: a letter first, then letters and digits.
const passwords = { gateway: `g${randomBytes(24).toString('hex')}`, 'api-core': `a${randomBytes(24).toString('hex')}` };

describe('NATS users and subject permissions (private nats-server)', () => {
  let nats: PrivateNats;
  const open: NatsConnection[] = [];

  const as = async (service: 'gateway' | 'api-core', options: Partial<ConnectionOptions> = {}): Promise<NatsConnection> => {
    const nc = await connect({ servers: [nats.url], user: service, pass: passwords[service], inboxPrefix: natsInboxPrefix(service, prefix), ...options });
    open.push(nc);
    return nc;
  };
  const s = (pattern: string) => `${prefix}.${pattern}`;

  /** The error the server sent for this subscription, or undefined when it was accepted (known once a flush returns). */
  async function subscribeOutcome(nc: NatsConnection, subject: string, queue?: string): Promise<string | undefined> {
    let error: NatsError | undefined;
    const sub = nc.subscribe(subject, { queue, callback: (err) => (error = err ?? error) });
    await nc.flush();
    if (!error) sub.unsubscribe();
    return error?.code;
  }

  /** What a request ends in: its reply, or the error code (PERMISSIONS_VIOLATION, or 503 when allowed but unanswered). */
  async function requestOutcome(nc: NatsConnection, subject: string): Promise<string> {
    try {
      return (await nc.request(subject, 'ping', { timeout: 2_000 })).string();
    } catch (err) {
      return (err as NatsError).code;
    }
  }

  beforeAll(async () => {
    nats = await PrivateNats.create({
      config: renderNatsConf({ subjectPrefix: prefix, mode: 'authorization' }),
      env: { NATS_GATEWAY_PASSWORD: passwords.gateway, NATS_API_CORE_PASSWORD: passwords['api-core'] },
    });
  });
  // A test's clients leave before the next test: a responder left in api-core's queue group would take the apps' requests.
  afterEach(async () => {
    await Promise.all(open.splice(0).map((nc) => nc.close()));
  });
  afterAll(async () => {
    await nats?.destroy();
  });

  it('without credentials, or with a wrong password, nothing connects', async () => {
    const refused = (options: Partial<ConnectionOptions>) => connect({ servers: [nats.url], ...options }).then(() => 'connected', (err: NatsError) => err.code);
    expect(await refused({})).toBe(NatsErrorCode.AuthorizationViolation);
    expect(await refused({ user: 'gateway', pass: 'wrong' })).toBe(NatsErrorCode.AuthorizationViolation);
    expect(await refused({ user: 'gateway', pass: passwords['api-core'] })).toBe(NatsErrorCode.AuthorizationViolation);
    expect(await refused({ user: 'importer', pass: passwords.gateway })).toBe(NatsErrorCode.AuthorizationViolation);
  });

  it("the gateway's user: no `>`, no api-core subjects, no other inbox; only its own inbox and auth.invalidate", async () => {
    const gateway = await as('gateway');
    const denied = NatsErrorCode.PermissionsViolation;
    expect(await subscribeOutcome(gateway, '>')).toBe(denied);
    expect(await subscribeOutcome(gateway, s('>'))).toBe(denied);
    expect(await subscribeOutcome(gateway, s('debtors.list'))).toBe(denied);
    expect(await subscribeOutcome(gateway, s('operator.api-keys.create'), 'api-core')).toBe(denied);
    expect(await subscribeOutcome(gateway, '_INBOX.>')).toBe(denied);
    expect(await subscribeOutcome(gateway, `${natsInboxPrefix('api-core', prefix)}.>`)).toBe(denied);
    expect(await subscribeOutcome(gateway, `${natsInboxPrefix('gateway', prefix)}.>`)).toBeUndefined();
    expect(await subscribeOutcome(gateway, s('auth.invalidate'))).toBeUndefined();
  });

  it("the gateway's user publishes only the registry's patterns: others are refused, an allowed one is answered by api-core's user", async () => {
    const gateway = await as('gateway');
    const core = await as('api-core');
    core.subscribe(s('auth.verify-key'), { queue: 'api-core', callback: (_err, msg) => msg.respond('verified') });
    core.subscribe(s('operator.api-keys.create'), { queue: 'api-core', callback: (_err, msg) => msg.respond('created') });
    await core.flush();

    expect(await requestOutcome(gateway, s('auth.verify-key'))).toBe('verified');
    expect(await requestOutcome(gateway, s('operator.api-keys.create'))).toBe('created');
    // Allowed but nobody serves it here: the broker's no-responders, not a permission error.
    expect(await requestOutcome(gateway, s('debtors.list'))).toBe(NatsErrorCode.NoResponders);
    for (const subject of [s('not-a-pattern'), s('auth.invalidate'), 'dc.debtors.list', `${natsInboxPrefix('api-core', prefix)}.x`]) {
      expect([subject, await requestOutcome(gateway, subject)]).toEqual([subject, NatsErrorCode.PermissionsViolation]);
    }
    // A plain publish outside the list is refused too (reported on the connection's status).
    const statuses: Status[] = [];
    void (async () => {
      for await (const status of gateway.status()) statuses.push(status);
    })();
    gateway.publish(s('auth.invalidate'), '{"organizationId":"org_x"}');
    await gateway.flush();
    await eventually(() =>
      expect(statuses).toContainEqual(expect.objectContaining({ data: NatsErrorCode.PermissionsViolation, permissionContext: { operation: 'publish', subject: s('auth.invalidate'), queue: undefined } })),
    );
  });

  it("the gateway's user cannot use the shared _INBOX: a request with the default inbox prefix gets no reply", async () => {
    const gateway = await as('gateway', { inboxPrefix: undefined });
    expect(await requestOutcome(gateway, s('auth.verify-key'))).toBe(NatsErrorCode.PermissionsViolation);
  });

  it("api-core's user cannot send requests to api-core's patterns, read them outside its queue group, or read the gateway's replies", async () => {
    const core = await as('api-core');
    const denied = NatsErrorCode.PermissionsViolation;
    expect(await requestOutcome(core, s('operator.api-keys.create'))).toBe(denied);
    expect(await requestOutcome(core, s('debtors.list'))).toBe(denied);
    expect(await subscribeOutcome(core, s('debtors.list'))).toBe(denied);
    expect(await subscribeOutcome(core, s('debtors.list'), 'other-group')).toBe(denied);
    expect(await subscribeOutcome(core, `${natsInboxPrefix('gateway', prefix)}.>`)).toBe(denied);
    expect(await subscribeOutcome(core, s('debtors.list'), 'api-core')).toBeUndefined();
  });

  describe('the real apps, each with its own NATS user', () => {
    let stack: Stack;

    beforeAll(async () => {
      const access = { NATS_URL: nats.url, NATS_SUBJECT_PREFIX: prefix };
      stack = await Stack.start({ gatewayReplicas: 0, env: { ...access, NATS_USER: 'api-core', NATS_PASSWORD: passwords['api-core'] } });
      await stack.startGateway({ NATS_USER: 'gateway', NATS_PASSWORD: passwords.gateway });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('serve operator and public requests end to end, and a revocation reaches the gateway at once (auth.invalidate)', async () => {
      const operator = new OperatorClient(stack.operatorUrl);
      const tenant = await createTenant(operator);
      const key = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'revocable' });
      const list = await request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${key.data.key}`);
      expect(list.status).toBe(200);
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual(tenant.portfolioIds);

      await operator.expect(200, 'POST', `/api-keys/${key.data.id}/revoke`);
      // Within the 60 s key cache: only api-core's auth.invalidate can make this 401 now.
      await eventually(async () => {
        const after = await request(stack.publicUrl).get('/public/v1/portfolios').set('Authorization', `Bearer ${key.data.key}`);
        expect(after.status).toBe(401);
      });
      const violations = [...stack.gateways.map((g) => g.process), ...stack.apiCores].flatMap((p) => p.logs).filter((l) => /permission/i.test(JSON.stringify(l)));
      expect(violations).toEqual([]);
    });

    it('a gateway with a wrong NATS password does not start, and does not print the password', async () => {
      const wrong = `g${randomBytes(24).toString('hex')}`;
      const gateway = new ServiceProcess('gateway', { ...stack.env, NATS_USER: 'gateway', NATS_PASSWORD: wrong, PORT: '0' });
      expect(await gateway.exitCode()).toBe(1);
      expect(gateway.errorOutput).toContain("gateway failed to start: NatsError: 'Authorization Violation'");
      expect(`${gateway.errorOutput}${JSON.stringify(gateway.logs)}`).not.toContain(wrong);
    });
  });
});
