import { createTenant, OPERATOR_TOKEN, OperatorClient, rawPost, Stack, Tenant, withDatabase } from '@dc/testing';
import http from 'node:http';
import net from 'node:net';
import request from 'supertest';

/** docs/adr/0016: no request crashes or stalls the gateway; values that cannot be stored exactly are refused. */
describe('hostile input at the HTTP edge', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await Stack.start();
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
  });
  afterAll(() => stack?.stop());

  const nestedNul = '['.repeat(20_000) + '"\\u0000"' + ']'.repeat(20_000);
  const deepObject = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
  const DEPTH_MESSAGE = 'The request body nests arrays and objects deeper than 64 levels.';

  const postRaw = (url: string, path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    request(url).post(path).set({ 'content-type': 'application/json', ...headers }).send(body);

  const expectEnvelope = (res: request.Response, status: number, code: string, message?: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { code, message: message ?? expect.any(String), requestId: res.headers['x-request-id'] } });
  };

  const stillServing = async () => {
    expect((await request(stack.publicUrl).get('/health/live')).status).toBe(200);
    expect(stack.gateways[0].process.running).toBe(true);
  };

  describe('deep nesting', () => {
    it('a 40 KB nested body with a NUL, without a key, is 401 and the gateway keeps serving (both listeners)', async () => {
      expectEnvelope(await postRaw(stack.publicUrl, '/public/v1/payments', nestedNul), 401, 'unauthorized');
      expectEnvelope(await postRaw(stack.operatorUrl, '/operator/v1/organizations', nestedNul), 401, 'unauthorized');
      await stillServing();
    });

    it('with a valid key or token, bodies nested deeper than 64 levels are 400 validation_error', async () => {
      const key = { authorization: `Bearer ${tenant.key}` };
      expectEnvelope(await postRaw(stack.publicUrl, '/public/v1/payments', deepObject, key), 400, 'validation_error', DEPTH_MESSAGE);
      expectEnvelope(await postRaw(stack.publicUrl, '/public/v1/payments', nestedNul, key), 400, 'validation_error', DEPTH_MESSAGE);
      const token = { authorization: `Bearer ${OPERATOR_TOKEN}` };
      expectEnvelope(await postRaw(stack.operatorUrl, '/operator/v1/organizations', deepObject, token), 400, 'validation_error', DEPTH_MESSAGE);
      await stillServing();
    });

    it('64 levels are parsed and judged by the schema as usual', async () => {
      const body = `{"name":"Deep","status":${'['.repeat(63)}${']'.repeat(63)}}`;
      const res = await postRaw(stack.operatorUrl, '/operator/v1/organizations', body, { authorization: `Bearer ${OPERATOR_TOKEN}` });
      expect(res.status).toBe(400);
      expect(res.body.error.issues).toEqual([{ message: 'status must be one of: active, suspended', path: 'status' }]);
    });
  });

  describe('text that cannot be stored as sent', () => {
    const key = () => ({ authorization: `Bearer ${tenant.key}` });

    it('a lone UTF-16 surrogate is 400 with its path', async () => {
      const res = await postRaw(stack.publicUrl, '/public/v1/payments', '{"externalId":"a\\ud800"}', key());
      expect(res.status).toBe(400);
      expect(res.body.error.issues).toEqual([
        { message: 'externalId contains an unpaired UTF-16 surrogate (such as \\ud800), which is not valid Unicode text', path: 'externalId' },
      ]);
    });

    it('bytes that are not UTF-8 are 400', async () => {
      const res = await rawPost(stack.publicUrl, '/public/v1/payments', key(), Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), { waitMs: 0 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'validation_error', message: 'The request body is not valid UTF-8.', requestId: res.headers['x-request-id'] } });
    });
  });

  describe('early answers reach clients that send the whole body first', () => {
    const big = JSON.stringify({ name: 'x'.repeat(6.5 * 1024 * 1024) });
    const TOO_LARGE = { Message: 'Request must be smaller than 6291456 bytes for the API' };

    it('a 6.5 MB body sent whole by fetch is answered 413, 20 times out of 20', async () => {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${stack.publicUrl}/public/v1/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.key}` },
          body: big,
        });
        expect(res.status).toBe(413);
        expect(await res.json()).toEqual(TOO_LARGE);
      }
    });

    it('a 6.5 MB body sent whole by http.request is answered 413, 20 times out of 20', async () => {
      for (let i = 0; i < 20; i++) {
        const res = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
          const req = http.request(`${stack.operatorUrl}/operator/v1/organizations`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big), authorization: `Bearer ${OPERATOR_TOKEN}` },
          });
          req.on('response', (r) => {
            let body = '';
            r.on('data', (c: Buffer) => (body += c.toString()));
            r.on('end', () => resolve({ status: r.statusCode, body }));
          });
          req.on('error', reject);
          req.end(big);
        });
        expect(res.status).toBe(413);
        expect(JSON.parse(res.body)).toEqual(TOO_LARGE);
      }
    });

    it('a 401 given before a large body is read reaches fetch too', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(4 * 1024 * 1024) });
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${stack.publicUrl}/public/v1/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(res.status).toBe(401);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
    });
  });

  it('a client that stalls mid-body is cut off with 408 request_timeout, and the log says so', async () => {
    const gateway = await stack.startGateway({ HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '500' });
    const { port } = new URL(gateway.operatorUrl);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /operator/v1/organizations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OPERATOR_TOKEN}\r\n` +
            `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
        );
      });
      let text = '';
      socket.on('data', (c) => (text += c.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    const requestId = /x-request-id: (\S+)/i.exec(head)![1];
    expect(JSON.parse(body)).toEqual({ error: { code: 'request_timeout', message: expect.stringContaining('not received in time'), requestId } });
    // The line travels through the gateway's asynchronous log stream and pipe: it may arrive after the answer.
    const cutOff = await gateway.process.waitForLog((l) => l.msg === 'client connection cut off' && l.requestId === requestId);
    expect(cutOff).toEqual(expect.objectContaining({ status: 408, code: 'ERR_HTTP_REQUEST_TIMEOUT' }));
  });

  describe('values that cannot be stored exactly', () => {
    const payment = (extra: Record<string, unknown>) => ({
      externalId: `p-${Date.now()}-${Math.random()}`,
      portfolioId: tenant.portfolioIds[0],
      debtorId: 'dbt_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      amount: 10,
      paymentDate: '2026-01-01',
      ...extra,
    });
    const batch = (debt: Record<string, unknown>) => ({
      debtors: [{ externalId: 'd-exact', identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'D1', debts: [{ externalId: 'debt-exact', totalAmount: 100, currency: 'EUR', ...debt }] }],
    });
    const postBatch = (body: unknown) =>
      request(stack.publicUrl).post(`/public/v1/portfolios/${tenant.portfolioIds[0]}/debtors`).set('Authorization', `Bearer ${tenant.key}`).send(body as object);
    const rows = () => withDatabase(stack.databaseUrl, async (c) => Number((await c.query('SELECT count(*) AS n FROM debts')).rows[0].n));

    it('an amount a JSON number cannot carry exactly with 4 decimals is 400, not rounded', async () => {
      const raw = JSON.stringify(payment({})).replace('"amount":10', '"amount":98765432101234.5678');
      const res = await postRaw(stack.publicUrl, '/public/v1/payments', raw, { authorization: `Bearer ${tenant.key}` });
      expect(res.status).toBe(400);
      expect(res.body.error.issues).toEqual([
        { message: 'amount must not be greater than 99999999999.9999 (larger amounts cannot be carried exactly by a JSON number)', path: 'amount' },
      ]);
      const batchRes = await postBatch(batch({ totalAmount: 98765432101234.56 }));
      expect(batchRes.status).toBe(400);
      expect(batchRes.body.error.issues).toEqual([
        {
          message: 'debtors[0].debts[0].totalAmount must not be greater than 99999999999.9999 (larger amounts cannot be carried exactly by a JSON number)',
          path: 'debtors[0].debts[0].totalAmount',
        },
      ]);
      expect(await rows()).toBe(0);
    });

    it.each([
      ['dueDate', '2026-99-99'],
      ['dueDate', '2026-02-30'],
      ['issueDate', '2026-01-01T24:00:00Z'],
      ['issueDate', '2026-01-01T10:61'],
    ])('a batch %s of %s is 400 and nothing is written', async (field, value) => {
      const res = await postBatch(batch({ [field]: value }));
      expect(res.status).toBe(400);
      expect(res.body.error.issues).toEqual([
        { message: `debtors[0].debts[0].${field} must be a real calendar date (and time of day)`, path: `debtors[0].debts[0].${field}` },
      ]);
      expect(await rows()).toBe(0);
    });

    it('the largest exact amount and a real date are accepted', async () => {
      const res = await postBatch(batch({ totalAmount: 99999999999.9999, dueDate: '2024-02-29T23:59:59+01:00' }));
      expect(res.status).toBe(200);
      expect(res.body.data.results[0].status).toBe('created');
      const [row] = await withDatabase(stack.databaseUrl, async (c) => (await c.query("SELECT total_amount::text, due_date FROM debts WHERE external_id = 'debt-exact'")).rows);
      expect(row).toEqual({ total_amount: '99999999999.9999', due_date: '2024-02-29T23:59:59+01:00' });
    });
  });
});
