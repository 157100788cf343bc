import { ApiError, retryAfterSeconds } from './api-error';
import { backoffDelay, isReplayable, retryDelay, retryingFetch } from './retry';

/** The retry policy's decisions (the behaviour against the real gateway: apps/gateway/test/client.e2e-spec.ts). */
const delays = { baseDelayMs: 1000, maxDelayMs: 60_000 };
const get = () => new Request('http://api.test/v1/me');
const post = (key?: string) =>
  new Request('http://api.test/v1/payments', { method: 'POST', body: '{"a":1}', headers: key === undefined ? {} : { 'idempotency-key': key } });
const answer = (status: number, headers: Record<string, string> = {}) => new Response('{}', { status, headers });

describe('retryDelay', () => {
  it('429: exactly Retry-After, for reads and writes alike; backoff when it is missing', () => {
    expect(retryDelay(answer(429, { 'retry-after': '7' }), get(), 0, delays)).toBe(7000);
    expect(retryDelay(answer(429, { 'retry-after': '7' }), post(), 0, delays)).toBe(7000);
    expect(retryDelay(answer(429), get(), 2, delays)).toBeGreaterThanOrEqual(2000);
    expect(retryDelay(answer(429), get(), 2, delays)).toBeLessThanOrEqual(4000);
  });

  it('an answer asking for a longer wait than maxDelayMs is not retried', () => {
    expect(retryDelay(answer(429, { 'retry-after': '61' }), get(), 0, delays)).toBeUndefined();
    expect(retryDelay(answer(503, { 'retry-after': '61' }), get(), 0, delays)).toBeUndefined();
  });

  it('503: the longer of Retry-After and the backoff step, for reads and keyed writes only', () => {
    expect(retryDelay(answer(503, { 'retry-after': '30' }), get(), 0, delays)).toBe(30_000);
    const stepped = retryDelay(answer(503, { 'retry-after': '1' }), get(), 3, delays)!;
    expect(stepped).toBeGreaterThanOrEqual(4000);
    expect(stepped).toBeLessThanOrEqual(8000);
    expect(retryDelay(answer(503, { 'retry-after': '1' }), post('k-1'), 0, delays)).toBeGreaterThanOrEqual(1000);
    expect(retryDelay(answer(503, { 'retry-after': '1' }), post(), 0, delays)).toBeUndefined();
    expect(retryDelay(answer(503, { 'retry-after': '1' }), post(''), 0, delays)).toBeUndefined();
  });

  it('never retries any other status', () => {
    for (const status of [200, 201, 400, 401, 403, 404, 408, 409, 413, 500, 502, 504]) {
      expect(retryDelay(answer(status, { 'retry-after': '1' }), get(), 0, delays)).toBeUndefined();
    }
  });
});

describe('backoffDelay', () => {
  it('doubles per step between half and all of the step, capped', () => {
    expect([0, 1, 2, 3].map((i) => backoffDelay(i, 500, 60_000, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect([0, 1, 2, 3].map((i) => backoffDelay(i, 500, 60_000, () => 1))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelay(20, 500, 3000, () => 1)).toBe(3000);
  });
});

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterSeconds('12')).toBe(12);
    expect(retryAfterSeconds(new Date(1_000_000 + 5_500).toUTCString(), 1_000_000)).toBe(5);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(null)).toBeUndefined();
  });
});

describe('isReplayable', () => {
  it('reads, and writes with a non-empty Idempotency-Key', () => {
    expect([get(), post('k'), post(), post('')].map(isReplayable)).toEqual([true, true, false, false]);
  });
});

describe('retryingFetch', () => {
  it('resends the same bytes and headers on every attempt, then gives the last answer', async () => {
    const seen: { body: string; key: string | null }[] = [];
    const waits: number[] = [];
    const fetch = retryingFetch(async (request) => {
      seen.push({ body: await request.text(), key: request.headers.get('idempotency-key') });
      return answer(429, { 'retry-after': String(seen.length) });
    }, { maxRetries: 2, sleep: async (ms) => void waits.push(ms) });
    const last = await fetch(post('key-1'));
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('3');
    expect(seen).toEqual(Array.from({ length: 3 }, () => ({ body: '{"a":1}', key: 'key-1' })));
    expect(waits).toEqual([1000, 2000]);
  });

  it('retries a network error of a read or a keyed write, never of an unkeyed write', async () => {
    const failing = (counter: { n: number }) => async () => {
      counter.n += 1;
      throw new TypeError('fetch failed');
    };
    for (const [request, attempts] of [[get(), 3], [post('k'), 3], [post(), 1]] as const) {
      const counter = { n: 0 };
      await expect(retryingFetch(failing(counter), { maxRetries: 2, sleep: async () => undefined })(request)).rejects.toThrow('fetch failed');
      expect(counter.n).toBe(attempts);
    }
  });

  it('stops waiting when the caller aborts', async () => {
    const controller = new AbortController();
    const fetch = retryingFetch(async () => answer(503, { 'retry-after': '30' }), { maxRetries: 1 });
    const pending = fetch(new Request('http://api.test/v1/me', { signal: controller.signal }));
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });
});

describe('ApiError.fromResponse', () => {
  it('reads the envelope, X-Request-Id, Retry-After and the Idempotency-Key sent', () => {
    const body = { error: { code: 'rate_limited', message: 'Over the limit', requestId: 'req_1', issues: [{ path: 'a', message: 'b' }] } };
    const error = ApiError.fromResponse(answer(429, { 'x-request-id': 'req_1', 'retry-after': '9' }), body, post('key-9'));
    expect(error).toMatchObject({ name: 'ApiError', status: 429, code: 'rate_limited', message: 'Over the limit', requestId: 'req_1', retryAfter: 9, idempotencyKey: 'key-9', issues: [{ path: 'a', message: 'b' }] });
    expect(error).toBeInstanceOf(Error);
  });

  it("treats the platform's bare 413 as payload_too_large and anything else outside the envelope as unexpected_response", () => {
    expect(ApiError.fromResponse(answer(413), { Message: 'Request Entity Too Large' }).code).toBe('payload_too_large');
    expect(ApiError.fromResponse(answer(502), '<html>bad gateway</html>')).toMatchObject({ code: 'unexpected_response', message: 'HTTP 502: <html>bad gateway</html>' });
  });
});
