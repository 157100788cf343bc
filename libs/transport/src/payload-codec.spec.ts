import { headers } from 'nats';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  bodyBudget, CLAIM_CHECK_HEADER, CLAIM_DIGEST_HEADER, ClaimStore, COMPRESS_ABOVE_BYTES, CONTENT_ENCODING_HEADER, encodeBody, goesPlain, GZIP, HEADERS_RESERVE_BYTES, isEncoded, readBody,
  UnreadableBodyError, writeBody,
} from './payload-codec';

const ONE_MIB = 1024 * 1024;
const bytesOf = (value: unknown) => Buffer.from(JSON.stringify(value));
const parse = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;

/** PayloadStore's contract (put, take once) in memory. */
class MemoryStore implements ClaimStore {
  readonly parked = new Map<string, Buffer>();
  private next = 0;
  async put(bytes: Buffer): Promise<string> {
    const ref = `ref-${(this.next += 1)}`;
    this.parked.set(ref, bytes);
    return ref;
  }
  async take(ref: string): Promise<Buffer | null> {
    const bytes = this.parked.get(ref) ?? null;
    this.parked.delete(ref);
    return bytes;
  }
}

// Moved from the gateway's encodeDebtors tests: the same batches, now encoded by the transport.
describe('encodeBody', () => {
  const make = (n: number, pad = 0) =>
    Array.from({ length: n }, (_, i) => ({ externalId: `e${i}`, identityFirstName: 'A', identityDocumentType: 't', identityDocumentNumber: 'n', identityLastName: 'x'.repeat(pad) }));

  it('says which bodies go as they are without encoding them (what NatsBus sends without an asynchronous step)', () => {
    expect(goesPlain(new Uint8Array(COMPRESS_ABOVE_BYTES), bodyBudget(ONE_MIB))).toBe(true);
    expect(goesPlain(new Uint8Array(COMPRESS_ABOVE_BYTES + 1), bodyBudget(ONE_MIB))).toBe(false);
    // A server with a max_payload below the compression threshold: the budget decides.
    expect(goesPlain(new Uint8Array(1000), 999)).toBe(false);
    expect(goesPlain(new Uint8Array(999), 999)).toBe(true);
  });

  it('sends small batches as they are', async () => {
    const json = bytesOf(make(2));
    expect(await encodeBody(json, bodyBudget(ONE_MIB))).toEqual({ kind: 'plain', bytes: json });
  });

  it('gzips large batches, losslessly', async () => {
    const debtors = make(500, 1000);
    const encoded = await encodeBody(bytesOf(debtors), bodyBudget(ONE_MIB));
    expect(encoded.kind).toBe('gzip');
    expect(JSON.parse(gunzipSync(encoded.bytes).toString('utf8'))).toEqual(debtors);
  });

  it('gzips with the fast level first, the strongest level only when the fast one does not fit', async () => {
    const json = bytesOf(make(500, 1000).map((d, i) => ({ ...d, note: `${i * 7919}`.repeat(40) })));
    const fast = gzipSync(json, { level: 1 }).length;
    const strongest = gzipSync(json, { level: 9 }).length;
    expect(strongest).toBeLessThan(fast);
    expect(await encodeBody(json, fast)).toMatchObject({ kind: 'gzip', level: 1 });
    const second = await encodeBody(json, fast - 1);
    expect(second).toMatchObject({ kind: 'gzip', level: 9 });
    expect(second.bytes.length).toBe(strongest);
  });

  it('gives up (claim check) when even the strongest compression does not fit one message', async () => {
    const random = Array.from({ length: 3000 }, (_, i) => ({ externalId: `e${i}`, identityFirstName: randomBytes(600).toString('base64'), identityDocumentType: 't', identityDocumentNumber: 'n' }));
    const encoded = await encodeBody(bytesOf(random), bodyBudget(ONE_MIB));
    expect(encoded.kind).toBe('claim-check');
    expect(encoded.bytes.length).toBeGreaterThan(bodyBudget(ONE_MIB));
    expect(JSON.parse(gunzipSync(encoded.bytes).toString('utf8'))).toEqual(random);
  });

  it('gzips small JSON too when the budget is smaller still', async () => {
    const json = bytesOf(make(200, 100));
    expect(json.length).toBeLessThan(COMPRESS_ABOVE_BYTES);
    expect((await encodeBody(json, json.length - 1)).kind).toBe('gzip');
  });
});

describe('bodyBudget', () => {
  it('leaves room for the headers in the server max_payload', () => {
    expect(bodyBudget(ONE_MIB)).toBe(ONE_MIB - HEADERS_RESERVE_BYTES);
  });
});

describe('writeBody / readBody', () => {
  const large = { pattern: 'p', id: 'i', data: { rows: Array.from({ length: 5000 }, (_, i) => ({ i, text: 'compressible '.repeat(10) })) } };
  const incompressible = { pattern: 'p', id: 'i', data: Array.from({ length: 2000 }, () => randomBytes(600).toString('base64')) };

  it('a small request: the JSON as it is, no encoding headers', async () => {
    const h = headers();
    const store = new MemoryStore();
    const json = bytesOf({ pattern: 'p', id: 'i', data: { a: 1 } });
    const body = await writeBody(h, json, ONE_MIB, store);
    expect(body).toBe(json);
    expect(isEncoded(h)).toBe(false);
    expect(h.has(CONTENT_ENCODING_HEADER)).toBe(false);
    expect(parse(await readBody(h, body, store))).toEqual({ pattern: 'p', id: 'i', data: { a: 1 } });
  });

  it('a large compressible request: gzip in the body, content-encoding gzip', async () => {
    const h = headers();
    const store = new MemoryStore();
    const body = await writeBody(h, bytesOf(large), ONE_MIB, store);
    expect(h.get(CONTENT_ENCODING_HEADER)).toBe(GZIP);
    expect(h.has(CLAIM_CHECK_HEADER)).toBe(false);
    expect(body.length).toBeLessThan(bodyBudget(ONE_MIB));
    expect(store.parked.size).toBe(0);
    expect(parse(await readBody(h, body, store))).toEqual(large);
  });

  it('a request over the budget even gzipped: parked, an empty body naming the claim, taken once', async () => {
    const h = headers();
    const store = new MemoryStore();
    const body = await writeBody(h, bytesOf(incompressible), ONE_MIB, store);
    expect(body.length).toBe(0);
    expect(h.get(CONTENT_ENCODING_HEADER)).toBe(GZIP);
    const ref = h.get(CLAIM_CHECK_HEADER);
    expect(store.parked.has(ref)).toBe(true);
    expect(isEncoded(h)).toBe(true);
    expect(parse(await readBody(h, body, store))).toEqual(incompressible);
    expect(store.parked.size).toBe(0);
    await expect(readBody(h, body, store)).rejects.toMatchObject({ name: 'UnreadableBodyError', retryable: true });
  });

  it('parked bytes swapped while parked (someone with Redis access) do not match the signed digest: refused, not retryable', async () => {
    const h = headers();
    const store = new MemoryStore();
    const body = await writeBody(h, bytesOf(incompressible), ONE_MIB, store);
    expect(h.get(CLAIM_DIGEST_HEADER)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const ref = h.get(CLAIM_CHECK_HEADER);
    store.parked.set(ref, gzipSync(Buffer.from(JSON.stringify({ pattern: 'p', id: 'i', data: { forged: true } }))));
    await expect(readBody(h, body, store)).rejects.toMatchObject({ name: 'UnreadableBodyError', retryable: false, message: expect.stringContaining('do not match the signed digest') });
  });

  it('a store that fails to park: the error is thrown, nothing is sent', async () => {
    const store: ClaimStore = { put: () => Promise.reject(new Error('redis down')), take: () => Promise.resolve(null) };
    await expect(writeBody(headers(), bytesOf(incompressible), ONE_MIB, store)).rejects.toThrow('redis down');
  });

  it('an unreachable store on read is retryable', async () => {
    const h = headers();
    h.set(CONTENT_ENCODING_HEADER, GZIP);
    h.set(CLAIM_CHECK_HEADER, 'ref-1');
    const store: ClaimStore = { put: () => Promise.resolve('x'), take: () => Promise.reject(new Error('redis down')) };
    await expect(readBody(h, new Uint8Array(0), store)).rejects.toMatchObject({ retryable: true });
  });

  it('an unknown encoding or corrupt gzip is not retryable', async () => {
    const store = new MemoryStore();
    const br = headers();
    br.set(CONTENT_ENCODING_HEADER, 'br');
    await expect(readBody(br, bytesOf({}), store)).rejects.toBeInstanceOf(UnreadableBodyError);
    await expect(readBody(br, bytesOf({}), store)).rejects.toMatchObject({ retryable: false });
    const gz = headers();
    gz.set(CONTENT_ENCODING_HEADER, GZIP);
    await expect(readBody(gz, bytesOf({ not: 'gzip' }), store)).rejects.toMatchObject({ retryable: false });
  });
});
