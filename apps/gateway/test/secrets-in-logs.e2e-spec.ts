import {
  auditLogText, createTenant, enqueueImport, eventually, generatedHeader, identityMapping, OPERATOR_TOKEN, OperatorClient, ServiceProcess, Stack, Tenant,
  uploadCsv, csvLine, waitForImport, WebhookReceiver,
} from '@dc/testing';
import { generateApiKey } from '@dc/contracts';
import { randomBytes } from 'node:crypto';
import request from 'supertest';

/**
 * Secrets never leak (docs/security.md): every path that carries a secret or personal data — keys minted,
 * used, mistyped and revoked; the operator token right and wrong; webhook secrets registered and
 * used to sign; debtor documents and names in batches, payments and CSV imports, valid and
 * refused — runs through all four services at debug level, and their whole output is searched for
 * each value. (The global teardown searches every service's output of the e2e run by shape too.)
 */
describe('secrets and personal data never reach the logs', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let importer: ServiceProcess;
  let dispatcher: ServiceProcess;
  const receivers: WebhookReceiver[] = [];
  const canary = (label: string) => `${label}${randomBytes(6).toString('hex').toUpperCase()}`;
  /** Every value that must appear in no log line, with what it is. */
  const secrets: { kind: string; value: string }[] = [{ kind: 'operator token', value: OPERATOR_TOKEN }];
  const keep = (kind: string, value: string) => (secrets.push({ kind, value }), value);

  beforeAll(async () => {
    // Receivers are on 127.0.0.1 (private targets allowed); retries a second apart.
    const webhooks = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RELAY_INTERVAL_MS: '100', WEBHOOK_RETRY_DELAY_MS: '1000', WEBHOOK_RETRY_JITTER_MS: '0' };
    stack = await Stack.start({ env: { ...webhooks, LOG_LEVEL: 'debug', RATE_LIMIT_PER_MINUTE: '100000' } });
    [importer, dispatcher] = await Promise.all([stack.startService('importer'), stack.startService('webhook-dispatcher')]);
    await Promise.all([importer.waitForLog((l) => l.msg === 'importer ready', 20_000), dispatcher.waitForLog((l) => l.msg === 'webhook-dispatcher ready', 20_000)]);
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator);
    keep('API key', tenant.key);
    keep('API key', tenant.readKey);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const pub = (method: 'get' | 'post', path: string, key = tenant.key) =>
    request(stack.publicUrl)[method](`/public/v1${path}`).set('Authorization', `Bearer ${key}`);

  it('keys: minted, used, mistyped, unknown and revoked', async () => {
    const created = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/api-keys`, { name: 'to-revoke' });
    const revokedKey = keep('API key', created.data.key as string);
    expect((await pub('get', '/portfolios', revokedKey)).status).toBe(200);
    await operator.expect(200, 'POST', `/api-keys/${created.data.id as string}/revoke`);
    await eventually(async () => expect((await pub('get', '/portfolios', revokedKey)).status).toBe(401), 70_000);
    // A key of the right shape with one character changed (checksum fails), and an unknown well-formed one.
    const mistyped = keep('mistyped API key', `${tenant.key.slice(0, -1)}${tenant.key.endsWith('A') ? 'B' : 'A'}`);
    expect((await pub('get', '/portfolios', mistyped)).status).toBe(401);
    const unknown = keep('unknown API key', generateApiKey('live'));
    expect((await pub('get', '/portfolios', unknown)).status).toBe(401);
    const wrongOperator = keep('wrong operator token', canary('operator-guess-'));
    expect((await request(stack.operatorUrl).post('/operator/v1/organizations').set('Authorization', `Bearer ${wrongOperator}`).send({ name: 'X' })).status).toBe(401);
  }, 90_000);

  it('debtor documents, names and phones in batches (accepted and refused) and payment references', async () => {
    const document = keep('debtor document', canary('DOC'));
    const lastName = keep('debtor name', canary('Surname'));
    const phone = '+34 612 34 56 78';
    const body = {
      debtors: [
        {
          externalId: keep('debtor externalId', canary('EXT')),
          identityFirstName: 'Ana',
          identityLastName: lastName,
          identityDocumentType: 'national_id',
          identityDocumentNumber: document,
          contactInfoPhoneNumbers: [{ phone, primary: true }],
          debts: [{ externalId: canary('D'), totalAmount: 100, paidAmount: 0, currency: 'EUR', dueDate: '2026-06-30' }],
        },
      ],
    };
    const accepted = await pub('post', `/portfolios/${tenant.portfolioIds[0]}/debtors`).set('Idempotency-Key', canary('idem')).send(body);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.summary).toEqual({ received: 1, created: 1, updated: 0, rejected: 0 });
    // Refused: the same personal data with a field that fails validation.
    const refusedDocument = keep('debtor document', canary('BADDOC'));
    const refused = await pub('post', `/portfolios/${tenant.portfolioIds[0]}/debtors`).send({
      debtors: [{ ...body.debtors[0], identityDocumentNumber: refusedDocument, contactInfoPhoneNumbers: [{ phone: keep('phone', '+34 699 000 111 222 333 444'), primary: 'yes' }] }],
    });
    expect(refused.status).toBe(400);
    const reference = keep('payment reference', canary('REF'));
    const debtorId = accepted.body.data.results[0].id as string;
    const payment = await pub('post', '/payments').set('Idempotency-Key', canary('idem')).send({
      externalId: canary('pay'), portfolioId: tenant.portfolioIds[0], debtorId, amount: 10, currency: 'EUR', paymentDate: '2026-01-10', reference,
    });
    expect(payment.status).toBe(201);
  });

  it('CSV imports with documents, accepted rows and refused ones', async () => {
    const header = generatedHeader();
    const good = [canary('imp-'), 'Ana', keep('debtor name', canary('Importname')), 'national_id', keep('debtor document', canary('IMPDOC')), '+34612345679', 'ana@example.com', canary('d'), '100', '0', 'EUR', '2026-06-30'];
    const bad = [canary('imp-'), 'Eva', 'Ruiz', 'national_id', keep('debtor document', canary('IMPBAD')), '12', 'not-an-email', canary('d'), 'x', '0', 'EUR', '2026-13-45'];
    const csv = `${[csvLine(header), csvLine(good), csvLine(bad)].join('\n')}\n`;
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, tenant.portfolioIds[0], csv);
    const enqueued = await enqueueImport(stack.publicUrl, tenant.key, tenant.portfolioIds[0], { storageKey, columnMapping: identityMapping(header) });
    expect(enqueued.status).toBe(202);
    const done = await waitForImport(stack.publicUrl, tenant.key, enqueued.body.data.id);
    expect(done).toMatchObject({ status: 'completed' });
  });

  it('webhook secrets: registered, rotated, used to sign deliveries that succeed and deliveries that fail', async () => {
    const ok = await WebhookReceiver.start({ status: 200, body: '' });
    const failing = await WebhookReceiver.start({ status: 500, body: 'down' });
    receivers.push(ok, failing);
    for (const receiver of [ok, failing]) {
      const webhook = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, { url: receiver.url, standardWebhooks: true });
      const secret = webhook.data.secret as string;
      expect(secret).toMatch(/^whsec_/);
      keep('webhook secret', secret);
      keep('webhook secret key part', secret.slice('whsec_'.length));
      // Rotated (docs/adr/0048): the new secret is answered once and never logged; both sign what follows.
      const rotated = await operator.expect(200, 'POST', `/webhooks/${webhook.data.id}/rotate-secret`, { overlapSeconds: 3600 });
      const newSecret = rotated.data.secret as string;
      expect(newSecret).toMatch(/^whsec_/);
      keep('rotated webhook secret', newSecret);
      keep('rotated webhook secret key part', newSecret.slice('whsec_'.length));
    }
    const debtors = await pub('get', '/debtors?limit=1');
    const payment = await pub('post', '/payments').send({
      externalId: canary('pay'), portfolioId: tenant.portfolioIds[0], debtorId: debtors.body.data[0].id, amount: 5, currency: 'EUR', paymentDate: '2026-01-11',
    });
    expect(payment.status).toBe(201);
    await eventually(() => {
      expect(ok.requests.length).toBeGreaterThanOrEqual(1);
      expect(failing.requests.length).toBeGreaterThanOrEqual(2); // a retry: the failure was handled and logged
    }, 20_000);
  }, 40_000);

  it('no service wrote any of those values, nor anything shaped like a secret', async () => {
    const services = [...stack.gateways.map((g) => g.process), ...stack.apiCores, importer, dispatcher];
    const lines = services.flatMap((s) => [...s.logs.map((l) => JSON.stringify(l)), ...s.errorOutput.split('\n')]);
    // The run was at debug level and did log: an empty output would prove nothing.
    expect(lines.length).toBeGreaterThan(100);
    const text = lines.join('\n');
    expect(secrets.length).toBeGreaterThanOrEqual(15);
    expect(secrets.filter(({ value }) => text.includes(value)).map((s) => s.kind)).toEqual([]);
    expect(auditLogText('services', text, secrets)).toEqual([]);
  });
});
