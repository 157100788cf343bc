import { ApiError, createClient, isApiError, type RetryEvent, verifyWebhook, WebhookVerificationError } from '@dc/client';
import { createTenant, OperatorClient, Stack, Tenant, WebhookReceiver } from '@dc/testing';

/**
 * The typed client (libs/client) against the real gateway and api-core —
 * typed reads and errors, pagination, an Idempotency-Key per write reused by its retries, 429 and
 * 503 retries, and webhook verification of a real delivery. Spec: Errors, Pagination, Rate limits,
 * Idempotency and safe retries, Webhooks; docs/adr/0029.
 */
jest.setTimeout(120_000);

/** Small, so a test can exhaust a key's window; every test has its own key, so none meets another's limit. */
const LIMIT = 30;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** One exchange as the client's fetch saw it. */
interface Exchange {
  method: string;
  url: URL;
  headers: Record<string, string>;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseText?: string;
}

/**
 * The fetch under the client, recording every attempt (the client's retries happen above it). With
 * `dropFirstWriteAnswer`, the first write reaches the gateway and runs, but its answer is thrown away
 * as a network error: what a connection reset after the server committed looks like to a client.
 */
function recordingFetch(options: { dropFirstWriteAnswer?: boolean } = {}) {
  const exchanges: Exchange[] = [];
  let dropped = false;
  const fetch = async (request: Request): Promise<Response> => {
    const exchange: Exchange = { method: request.method, url: new URL(request.url), headers: Object.fromEntries(request.headers) };
    exchanges.push(exchange);
    const response = await globalThis.fetch(request);
    const text = await response.text();
    Object.assign(exchange, { status: response.status, responseHeaders: Object.fromEntries(response.headers), responseText: text });
    if (options.dropFirstWriteAnswer && request.method !== 'GET' && !dropped) {
      dropped = true;
      throw new TypeError('fetch failed (the answer was lost after the request ran)');
    }
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch, exchanges };
}

const debtorsFor = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    externalId: `${prefix}-${i}`,
    identityFirstName: `Debtor ${i}`,
    identityDocumentType: 'national_id',
    identityDocumentNumber: `${prefix.toUpperCase()}${String(i).padStart(4, '0')}`,
  }));

/** Waits, if needed, so that the next `seconds` stay inside one rate-limit window (the clock minute; Redis runs on this host). */
async function freshWindow(seconds: number): Promise<void> {
  const into = Math.floor(Date.now() / 1000) % 60;
  if (into > 60 - seconds) await new Promise((resolve) => setTimeout(resolve, (61 - into) * 1000));
}

describe('@dc/client against the real gateway', () => {
  let stack: Stack;
  let operator: OperatorClient;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    stack = await Stack.start({
      env: {
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        // Webhooks to the local receiver (http://127.0.0.1), delivered promptly.
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RELAY_INTERVAL_MS: '100',
        WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
      },
    });
    operator = new OperatorClient(stack.operatorUrl);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const baseUrl = () => `${stack.publicUrl}/public`;
  const clientFor = (tenant: Tenant, extra: Partial<Parameters<typeof createClient>[0]> = {}) => {
    const recorder = recordingFetch();
    return { client: createClient({ baseUrl: baseUrl(), apiKey: tenant.key, fetch: recorder.fetch, ...extra }), exchanges: recorder.exchanges };
  };

  it('reads typed data with the key as a bearer token, and no Idempotency-Key on reads', async () => {
    const tenant = await createTenant(operator, { portfolios: 2 });
    const { client, exchanges } = clientFor(tenant, { userAgent: 'client-e2e/1.0' });

    const me = await client.get('/v1/me');
    expect(me.data.organization).toEqual({ id: tenant.organizationId, name: 'Acme Collections', status: 'active' });
    expect(me.data.apiKey.scopes).toEqual(['read', 'write']);
    expect(me.data.portfolioCount).toBe(2);

    const portfolio = await client.get('/v1/portfolios/{id}', { params: { path: { id: tenant.portfolioIds[1] } } });
    expect(portfolio.data.id).toBe(tenant.portfolioIds[1]);

    expect(exchanges.map((e) => [e.method, e.url.pathname, e.status])).toEqual([
      ['GET', '/public/v1/me', 200],
      ['GET', `/public/v1/portfolios/${tenant.portfolioIds[1]}`, 200],
    ]);
    for (const e of exchanges) {
      expect(e.headers.authorization).toBe(`Bearer ${tenant.key}`);
      expect(e.headers['user-agent']).toBe('client-e2e/1.0');
      expect(e.headers).not.toHaveProperty('idempotency-key');
    }
  });

  it('throws ApiError with the envelope code, message, issues and X-Request-Id, once, without retrying', async () => {
    const tenant = await createTenant(operator);
    const { client, exchanges } = clientFor(tenant);

    const missing = await client.get('/v1/debtors/{id}', { params: { path: { id: 'dbt_missing' } } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(isApiError(missing, 'not_found')).toBe(true);
    expect(missing).toMatchObject({ name: 'ApiError', status: 404, code: 'not_found', issues: [], retryAfter: undefined, idempotencyKey: undefined });
    expect((missing as ApiError).requestId).toBe(exchanges[0].responseHeaders!['x-request-id']);
    expect((missing as ApiError).message).toBe(JSON.parse(exchanges[0].responseText!).error.message);

    const invalid = await client.get('/v1/debtors', { params: { query: { cursor: 'not-a-cursor-we-issued' } } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_error' });
    expect((invalid as ApiError).requestId).toBe(exchanges[1].responseHeaders!['x-request-id']);
    expect((invalid as ApiError).body).toEqual(JSON.parse(exchanges[1].responseText!));

    // The openapi-fetch style answers instead of throwing.
    const { data, error, response } = await client.api.GET('/v1/debtors/{id}', { params: { path: { id: 'dbt_missing' } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: response.headers.get('x-request-id') } });

    expect(exchanges.map((e) => e.status)).toEqual([404, 400, 404]);
  });

  it('paginates: every item exactly once across pages, each page asked with the previous nextCursor', async () => {
    const tenant = await createTenant(operator, { portfolios: 2 });
    const [pf, other] = tenant.portfolioIds;
    const { client, exchanges } = clientFor(tenant);
    const batch = await client.post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf } }, body: { debtors: debtorsFor('pg', 7) } });
    expect(batch.data.summary).toEqual({ received: 7, created: 7, updated: 0, rejected: 0 });
    const created = batch.data.results.map((r) => (r.status === 'rejected' ? 'rejected' : r.id)).sort();
    // A debtor of another portfolio, which the filter must leave out.
    await client.post('/v1/portfolios/{id}/debtors', { params: { path: { id: other } }, body: { debtors: debtorsFor('other', 1) } });

    const seen: string[] = [];
    for await (const debtor of client.paginate('/v1/debtors', { query: { portfolioId: pf, limit: 3 } })) {
      expect(debtor.portfolioId).toBe(pf);
      seen.push(debtor.id);
    }
    expect([...seen].sort()).toEqual(created);
    expect(new Set(seen).size).toBe(7);

    // Array filters go as the document's comma lists (`explode: false`).
    exchanges.length = 0;
    const filtered = await client.paginate('/v1/debtors', { query: { portfolioId: pf, status: ['active', 'settled'], limit: 100 } }).toArray();
    expect(filtered.map((d) => d.id).sort()).toEqual(created);
    expect(exchanges.map((e) => e.url.searchParams.getAll('status'))).toEqual([['active,settled']]);

    exchanges.length = 0;
    const pages = [];
    for await (const page of client.paginate('/v1/debtors', { query: { portfolioId: pf, limit: 3 } }).pages()) pages.push(page);
    expect(pages.map((p) => [p.data.length, p.pagination.hasMore, p.pagination.limit])).toEqual([[3, true, 3], [3, true, 3], [1, false, 3]]);
    expect(pages[2].pagination.nextCursor).toBeNull();
    expect(pages.flatMap((p) => p.data.map((d) => d.id))).toEqual(seen);
    expect(exchanges.map((e) => Object.fromEntries(e.url.searchParams))).toEqual([
      { portfolioId: pf, limit: '3' },
      { portfolioId: pf, limit: '3', cursor: pages[0].pagination.nextCursor },
      { portfolioId: pf, limit: '3', cursor: pages[1].pagination.nextCursor },
    ]);
  });

  it('sends a generated Idempotency-Key on a write and reuses it when retrying: the retry replays, nothing runs twice', async () => {
    const tenant = await createTenant(operator);
    const pf = tenant.portfolioIds[0];
    const recorder = recordingFetch({ dropFirstWriteAnswer: true });
    const retries: RetryEvent[] = [];
    const client = createClient({ baseUrl: baseUrl(), apiKey: tenant.key, fetch: recorder.fetch, retry: { baseDelayMs: 20, onRetry: (e) => retries.push(e) } });

    const result = await client.post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf } }, body: { debtors: debtorsFor('idem', 2) } });

    const [first, second] = recorder.exchanges;
    expect(recorder.exchanges).toHaveLength(2);
    expect(first.headers['idempotency-key']).toMatch(UUID);
    expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.responseHeaders).not.toHaveProperty('idempotent-replayed');
    expect(second.responseHeaders!['idempotent-replayed']).toBe('true');
    expect(JSON.parse(second.responseText!)).toEqual(JSON.parse(first.responseText!));
    // The answer of the run that happened: "created", not the "updated" a second run would say.
    expect(result.data.summary).toEqual({ received: 2, created: 2, updated: 0, rejected: 0 });
    expect(retries.map((r) => [r.retry, r.reason])).toEqual([[1, 'network_error']]);

    const listed = await client.paginate('/v1/debtors', { query: { portfolioId: pf } }).toArray();
    expect(listed.map((d) => d.externalId).sort()).toEqual(['idem-0', 'idem-1']);

    // A new call is a new operation: a new key.
    const again = clientFor(tenant);
    await again.client.post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf } }, body: { debtors: debtorsFor('idem', 2) } });
    expect(again.exchanges[0].headers['idempotency-key']).toMatch(UUID);
    expect(again.exchanges[0].headers['idempotency-key']).not.toBe(first.headers['idempotency-key']);
    expect(again.exchanges[0].responseHeaders).not.toHaveProperty('idempotent-replayed');
  });

  it("uses the caller's Idempotency-Key when given (typed header parameter or plain header)", async () => {
    const tenant = await createTenant(operator);
    const pf = tenant.portfolioIds[0];
    const { client, exchanges } = clientFor(tenant);
    const body = { debtors: debtorsFor('own', 1) };

    const one = await client.post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf }, header: { 'Idempotency-Key': 'order-42' } }, body });
    const two = await client.post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf } }, headers: { 'Idempotency-Key': 'order-42' }, body });
    expect(exchanges.map((e) => [e.headers['idempotency-key'], e.responseHeaders!['idempotent-replayed'] ?? null])).toEqual([
      ['order-42', null],
      ['order-42', 'true'],
    ]);
    expect(two.data).toEqual(one.data);

    // The same key with another body: 409, typed, carrying the key for the caller's logs.
    const conflict = await client
      .post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf } }, headers: { 'Idempotency-Key': 'order-42' }, body: { debtors: debtorsFor('own2', 1) } })
      .catch((e: unknown) => e);
    expect(conflict).toMatchObject({ status: 409, code: 'idempotency_conflict', idempotencyKey: 'order-42' });
    expect(exchanges).toHaveLength(3);
  });

  describe('webhooks', () => {
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      const dispatcher = await stack.startService('webhook-dispatcher');
      await dispatcher.waitForLog((l) => l.msg === 'webhook-dispatcher ready', 20_000);
      receiver = await WebhookReceiver.start();
      receivers.push(receiver);
    });

    it('verifyWebhook accepts a real delivery over its raw bytes and refuses it tampered or with another secret', async () => {
      const tenant = await createTenant(operator);
      const pf = tenant.portfolioIds[0];
      const hook = await operator.expect(201, 'POST', `/organizations/${tenant.organizationId}/webhooks`, { url: receiver.url });
      const secret: string = hook.data.secret;
      expect(secret).toMatch(/^whsec_/);

      const { client } = clientFor(tenant);
      const batch = await client.post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf } }, body: { debtors: debtorsFor('wh', 1) } });
      const [accepted] = batch.data.results;
      if (accepted.status === 'rejected') throw new Error(`debtor rejected: ${JSON.stringify(accepted)}`);
      const debtorId = accepted.id;
      const payment = await client.post('/v1/payments', {
        body: { externalId: 'pay-client-1', portfolioId: pf, debtorId, amount: 25.5, currency: 'EUR', paymentDate: '2026-11-20', method: 'card' },
      });

      const delivery = await receiver.waitFor((r) => r.json().data?.id === payment.data.id, 15_000, 'the payment.registered delivery');
      const event = verifyWebhook(delivery.rawBody, delivery.headers, secret);
      expect(event.type).toBe('payment.registered');
      if (event.type !== 'payment.registered') throw new Error('narrowed above');
      expect(event.data).toEqual(payment.data);
      expect(event.livemode).toBe(true);
      expect(event.id).toMatch(/^dlv_/);
      expect(event.eventId).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);

      const tampered = Buffer.from(delivery.rawBody.toString('utf8').replace('"amount":25.5', '"amount":255'));
      expect(tampered.equals(delivery.rawBody)).toBe(false);
      for (const [body, key] of [[tampered, secret], [delivery.rawBody, `${secret.slice(0, -1)}x`]] as const) {
        let refused: unknown;
        try {
          verifyWebhook(body, delivery.headers, key);
        } catch (error) {
          refused = error;
        }
        expect(refused).toBeInstanceOf(WebhookVerificationError);
        expect(refused).toMatchObject({ reason: 'signature_mismatch' });
      }
      // A body parsed and re-serialised is not the raw body.
      expect(() => verifyWebhook(JSON.stringify(JSON.parse(delivery.rawBody.toString('utf8')), null, 2), delivery.headers, secret)).toThrow(WebhookVerificationError);
    });
  });

  it('429: gives up with a typed rate_limited after maxRetries, each wait exactly Retry-After; then waits Retry-After for real and succeeds', async () => {
    const tenant = await createTenant(operator);
    // The exhaustion and the first client's three attempts happen in one window.
    await freshWindow(20);
    for (let i = 0; i < LIMIT; i += 10) {
      await Promise.all(Array.from({ length: 10 }, () => fetch(`${baseUrl()}/v1/me`, { headers: { authorization: `Bearer ${tenant.key}` } })));
    }

    // Waits recorded, not slept: the window cannot end in between, so every attempt is refused.
    const waits: number[] = [];
    const impatient = clientFor(tenant, { retry: { maxRetries: 2, sleep: async (ms) => void waits.push(ms) } });
    const refused = await impatient.client.get('/v1/me').catch((e: unknown) => e);
    const answers = impatient.exchanges;
    expect(answers.map((e) => e.status)).toEqual([429, 429, 429]);
    const retryAfters = answers.map((e) => Number(e.responseHeaders!['retry-after']));
    for (const seconds of retryAfters) expect(seconds).toBeGreaterThanOrEqual(1);
    expect(waits).toEqual(retryAfters.slice(0, 2).map((s) => s * 1000));
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: retryAfters[2], requestId: answers[2].responseHeaders!['x-request-id'] });

    // The default sleep: the client waits out the window, then the same call succeeds in the next one.
    const retries: RetryEvent[] = [];
    const patient = clientFor(tenant, { retry: { onRetry: (e) => retries.push(e) } });
    const me = await patient.client.get('/v1/me');
    expect(me.data.organization.id).toBe(tenant.organizationId);
    const [limited, served] = patient.exchanges;
    expect(patient.exchanges.map((e) => e.status)).toEqual([429, 200]);
    expect(retries.map((r) => [r.reason, r.delayMs])).toEqual([['rate_limited', Number(limited.responseHeaders!['retry-after']) * 1000]]);
    // Served in the window after the one that refused it, as its first request.
    expect(Number(served.responseHeaders!['x-ratelimit-reset'])).toBe(Number(limited.responseHeaders!['x-ratelimit-reset']) + 60);
    expect(served.responseHeaders!['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  // Last: it stops api-core.
  it('503: retries reads and keyed writes with exponential backoff (at least Retry-After), then throws service_unavailable; never an unkeyed write', async () => {
    const tenant = await createTenant(operator);
    const pf = tenant.portfolioIds[0];
    await Promise.all(stack.apiCores.map((core) => core.stop('SIGKILL')));

    const waits: number[] = [];
    const { client, exchanges } = clientFor(tenant, { retry: { maxRetries: 3, baseDelayMs: 2000, sleep: async (ms) => void waits.push(ms) } });
    const read = await client.get('/v1/me').catch((e: unknown) => e);
    expect(read).toBeInstanceOf(ApiError);
    expect(read).toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: 1, requestId: exchanges[3].responseHeaders!['x-request-id'] });
    expect(exchanges.map((e) => e.status)).toEqual([503, 503, 503, 503]);
    // Step n waits within [2000·2ⁿ/2, 2000·2ⁿ] (equal jitter), never below Retry-After (1 s).
    expect(waits).toHaveLength(3);
    waits.forEach((ms, n) => {
      expect(ms).toBeGreaterThanOrEqual(1000 * 2 ** n);
      expect(ms).toBeLessThanOrEqual(2000 * 2 ** n);
    });

    exchanges.length = 0;
    const keyed = await client.post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf } }, body: { debtors: debtorsFor('down', 1) } }).catch((e: unknown) => e);
    expect(keyed).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(exchanges).toHaveLength(4);
    expect(new Set(exchanges.map((e) => e.headers['idempotency-key'])).size).toBe(1);
    expect((keyed as ApiError).idempotencyKey).toBe(exchanges[0].headers['idempotency-key']);

    // An empty key is the API's "no key": such a write might have run, so it is not resent.
    exchanges.length = 0;
    const unkeyed = await client
      .post('/v1/portfolios/{id}/debtors', { params: { path: { id: pf } }, headers: { 'Idempotency-Key': '' }, body: { debtors: debtorsFor('down', 1) } })
      .catch((e: unknown) => e);
    expect(unkeyed).toMatchObject({ status: 503, code: 'service_unavailable', idempotencyKey: undefined });
    expect(exchanges).toHaveLength(1);
  });
});
