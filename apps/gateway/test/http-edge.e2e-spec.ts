import { eventually, OPERATOR_TOKEN, rawPost, Stack } from '@dc/testing';
import request from 'supertest';

describe('HTTP edge: envelope, request ids, body limits, operator token', () => {
  let stack: Stack;

  const METRICS_TOKEN = 'metrics-scrape-token-Zq81Lw0pX5vN3rT7yB2cK9mJ4hF6dS';

  beforeAll(async () => {
    stack = await Stack.start({ env: { METRICS_TOKEN } });
  });
  afterAll(() => stack?.stop());

  it('an unknown route is 404 not_found in the envelope, with X-Request-Id', async () => {
    const res = await request(stack.publicUrl).get('/public/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: res.headers['x-request-id'] } });
  });

  it.each([
    ['an undecodable path', '/public/v1/debtors/%C0'],
    ['a path parameter over 100 characters', `/public/v1/debtors/${'x'.repeat(101)}`],
  ])('%s is 404 not_found in the envelope, with X-Request-Id', async (_case, path) => {
    const res = await request(stack.publicUrl).get(path);
    expect(res.status).toBe(404);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: res.headers['x-request-id'] } });
  });

  it.each(['PATCH', 'DELETE', 'OPTIONS'])('%s on an undecodable path is 404 in the envelope, with X-Request-Id (found by the fuzz suite)', async (method) => {
    const res = await request(stack.publicUrl)[method.toLowerCase() as 'patch' | 'delete' | 'options']('/public/v1/debts/%ED%A0%80');
    expect(res.status).toBe(404);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), requestId: res.headers['x-request-id'] } });
  });

  it('a body over 6 MB is refused by the platform with a bare Message', async () => {
    const res = await rawPost(stack.operatorUrl, '/operator/v1/organizations', { authorization: `Bearer ${OPERATOR_TOKEN}` }, JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024 + 10) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ Message: 'Request must be smaller than 6291456 bytes for the API' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.bodySent).toBe(false); // refused on its Content-Length, before the upload
  });

  it('with Expect: 100-continue an over-limit body is refused before the client uploads it', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024 + 10) });
    const res = await rawPost(stack.publicUrl, '/public/v1/me', {}, big, { expectContinue: true });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ Message: 'Request must be smaller than 6291456 bytes for the API' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.bodySent).toBe(false);
    // A caller's X-Request-Id is not taken by default (TRUST_REQUEST_ID=false)…
    const untrusted = await rawPost(stack.publicUrl, '/public/v1/me', { 'x-request-id': 'trace-413-0000' }, big, { expectContinue: true });
    expect(untrusted.status).toBe(413);
    expect(untrusted.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    // …and where it is trusted, it is kept here too and the refusal is logged under it.
    const trusting = await stack.startGateway({ PORT: '0', TRUST_REQUEST_ID: 'true' });
    const traced = await rawPost(trusting.publicUrl, '/public/v1/me', { 'x-request-id': 'trace-413-0001' }, big, { expectContinue: true });
    expect(traced.status).toBe(413);
    expect(traced.headers['x-request-id']).toBe('trace-413-0001');
    await eventually(() => expect(trusting.process.logs.some((l) => l.requestId === 'trace-413-0001' && l.status === 413)).toBe(true));
  });

  it('with Expect: 100-continue a body within the limit is asked for and handled as usual', async () => {
    const res = await rawPost(stack.operatorUrl, '/operator/v1/organizations', { authorization: `Bearer ${OPERATOR_TOKEN}` }, JSON.stringify({ name: 'Continue Ltd' }), { expectContinue: true });
    expect(res.status).toBe(201);
    expect(res.bodySent).toBe(true);
    expect(res.body.data.name).toBe('Continue Ltd');
  });

  it('malformed JSON is 400 validation_error', async () => {
    const res = await request(stack.operatorUrl)
      .post('/operator/v1/organizations')
      .set('Authorization', `Bearer ${OPERATOR_TOKEN}`)
      .set('Content-Type', 'application/json')
      .send('{"name":');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'validation_error', message: 'The request body is not valid JSON.', requestId: res.headers['x-request-id'] });
  });

  it('an unreadable body is 400 on routes that take no body too, after authentication', async () => {
    const del = (token?: string) => {
      const req = request(stack.operatorUrl).delete('/operator/v1/debtors/dbt_01ARZ3NDEKTSV4RRFFQ69G5FAV').set('Content-Type', 'application/json');
      return (token ? req.set('Authorization', `Bearer ${token}`) : req).send('{"oops":');
    };
    const res = await del(OPERATOR_TOKEN);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'validation_error', message: 'The request body is not valid JSON.', requestId: res.headers['x-request-id'] });
    expect((await del()).status).toBe(401);
  });

  it('the operator API refuses a missing or wrong token with 401', async () => {
    const missing = await request(stack.operatorUrl).post('/operator/v1/organizations').send({ name: 'A' });
    const wrong = await request(stack.operatorUrl).post('/operator/v1/organizations').set('Authorization', 'Bearer nope').send({ name: 'A' });
    for (const res of [missing, wrong]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  it('/metrics answers only a bearer of METRICS_TOKEN or OPERATOR_TOKEN, on the operator listener only', async () => {
    const metrics = (authorization?: string) => {
      const req = request(stack.operatorUrl).get('/metrics');
      return authorization ? req.set('Authorization', authorization) : req;
    };
    for (const res of [await metrics(), await metrics('Bearer nope'), await metrics(METRICS_TOKEN)]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('METRICS_TOKEN') } });
      expect(res.text).not.toContain('gateway_');
    }
    for (const token of [METRICS_TOKEN, OPERATOR_TOKEN]) {
      const res = await metrics(`Bearer ${token}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^# TYPE gateway_/m);
    }
    expect((await request(stack.publicUrl).get('/metrics').set('Authorization', `Bearer ${OPERATOR_TOKEN}`)).status).toBe(404);
  });

  it('operator validation lists every problem with its path', async () => {
    const res = await request(stack.operatorUrl)
      .post('/operator/v1/organizations')
      .set('Authorization', `Bearer ${OPERATOR_TOKEN}`)
      .send({ nam: 'typo', status: 'closed' });
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([
      { message: 'property nam should not exist', path: 'nam' },
      { message: expect.stringContaining('name'), path: 'name' },
      { message: 'status must be one of: active, suspended', path: 'status' },
    ]);
  });

  it('the public listener does not serve the operator API', async () => {
    const res = await request(stack.publicUrl).post('/operator/v1/organizations').set('Authorization', `Bearer ${OPERATOR_TOKEN}`).send({ name: 'A' });
    expect(res.status).toBe(404);
  });

  it('health endpoints answer outside /public', async () => {
    expect((await request(stack.publicUrl).get('/health/live')).body).toEqual({ status: 'ok' });
    expect((await request(stack.publicUrl).get('/health/ready')).body).toEqual({ status: 'ok', details: { nats: 'ok', redis: 'ok' } });
  });

  it('serves the API reference at /docs and the OpenAPI document at /docs/openapi.json', async () => {
    const html = await request(stack.publicUrl).get('/docs');
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    const doc = await request(stack.publicUrl).get('/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toContain('/v1/portfolios/{id}');
  });
});
