import { createTenant, OperatorClient, Stack, Tenant } from '@dc/testing';
import { request as httpRequest, IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as they crossed the wire (not decoded). */
  bytes: Buffer;
}

/** A request whose response is read as raw bytes (supertest would decompress it). */
function raw(url: string, path: string, headers: Record<string, string>, method = 'GET', body?: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Compression where the client asks for it (docs/adr/0024): brotli or gzip by
 * Accept-Encoding for responses of at least HTTP_COMPRESS_MIN_BYTES (1024), identity otherwise;
 * request bodies are never decompressed.
 */
describe('response compression by Accept-Encoding', () => {
  let stack: Stack;
  let tenant: Tenant;
  let auth: Record<string, string>;
  const page = '/public/v1/debtors?limit=100';

  beforeAll(async () => {
    stack = await Stack.start();
    tenant = await createTenant(new OperatorClient(stack.operatorUrl));
    auth = { authorization: `Bearer ${tenant.key}` };
    const debtors = Array.from({ length: 40 }, (_, i) => ({
      externalId: `cmp-${i}`,
      identityFirstName: 'Ana',
      identityLastName: `García ${i}`,
      identityDocumentType: 'national_id',
      identityDocumentNumber: `DOC-${i}`,
    }));
    const res = await raw(stack.publicUrl, `/public/v1/portfolios/${tenant.portfolioIds[0]}/debtors`, { ...auth, 'content-type': 'application/json' }, 'POST', Buffer.from(JSON.stringify({ debtors })));
    expect([res.status, res.bytes.toString().slice(0, 300)]).toEqual([200, expect.any(String)]);
  });
  afterAll(() => stack?.stop());

  it('without Accept-Encoding the page is sent as it is', async () => {
    const res = await raw(stack.publicUrl, page, auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(res.bytes.length);
    expect(JSON.parse(res.bytes.toString()).data).toHaveLength(40);
  });

  it.each([
    ['gzip', 'gzip', gunzipSync],
    ['br', 'br', brotliDecompressSync],
    ['gzip, deflate, br', 'br', brotliDecompressSync],
    ['br;q=0.5, gzip', 'gzip', gunzipSync],
  ])('Accept-Encoding "%s" gets %s: the same bytes, several times smaller', async (accept, encoding, decode) => {
    const identity = await raw(stack.publicUrl, page, auth);
    const res = await raw(stack.publicUrl, page, { ...auth, 'accept-encoding': accept });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(decode(res.bytes).toString()).toBe(identity.bytes.toString());
    expect(res.bytes.length * 5).toBeLessThan(identity.bytes.length);
  });

  it('a response under 1024 bytes is not compressed (GET /me, an error envelope)', async () => {
    const me = await raw(stack.publicUrl, '/public/v1/me', { ...auth, 'accept-encoding': 'gzip, br' });
    expect(me.status).toBe(200);
    expect(me.bytes.length).toBeLessThan(1024);
    expect(me.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(me.bytes.toString()).data.organization.id).toBe(tenant.organizationId);
    const missing = await raw(stack.publicUrl, '/public/v1/debtors/dbt_00000000000000000000000000', { ...auth, 'accept-encoding': 'gzip' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(missing.bytes.toString()).error.code).toBe('not_found');
  });

  it('a compressed request body is not inflated: refused as a body that is not JSON, nothing written', async () => {
    const body = gzipSync(Buffer.from(JSON.stringify({ debtors: [{ externalId: 'gz-1', identityFirstName: 'A', identityDocumentType: 't', identityDocumentNumber: 'n' }] })));
    const res = await raw(stack.publicUrl, `/public/v1/portfolios/${tenant.portfolioIds[0]}/debtors`, { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'POST', body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.bytes.toString()).error.code).toBe('validation_error');
    const listed = JSON.parse((await raw(stack.publicUrl, page, auth)).bytes.toString()) as { data: { externalId: string }[] };
    expect(listed.data.map((d) => d.externalId)).not.toContain('gz-1');
  });
});
