import { decodeRecord, encodeDone } from './idempotency.store';

/** A debtor batch's answer for 1,000 items, as api-core shapes it (~90 KB of JSON). */
function batchResponse(): unknown {
  return {
    data: Array.from({ length: 1000 }, (_, i) => ({
      index: i,
      status: i % 7 === 0 ? 'updated' : 'created',
      id: `dbt_01JD${String(i).padStart(22, '0')}`,
      externalId: `client-debtor-${i}-${(i * 7919) % 100_003}`,
      errors: i % 50 === 0 ? [{ path: 'documentNumber', message: 'must be a valid document' }] : [],
    })),
    summary: { created: 857, updated: 143, failed: 0 },
  };
}

describe('idempotency records (compressed, docs/adr/0027)', () => {
  it('stores a large response in a fraction of its size and gives back the very bytes sent', async () => {
    const body = batchResponse();
    const sent = Buffer.from(JSON.stringify(body));
    expect(sent.length).toBeGreaterThan(80_000);
    const record = await encodeDone('fp', { status: 201, body, headers: { location: '/x' } });
    expect(record.length).toBeLessThan(sent.length / 4);
    const decoded = await decodeRecord(record);
    expect(decoded).toEqual({ state: 'done', fingerprint: 'fp', response: { status: 201, headers: { location: '/x' }, body: expect.any(Buffer) } });
    const replayed = (decoded as { response: { body: Buffer } }).response.body;
    expect(replayed.equals(sent)).toBe(true);
  });

  it('keeps a body that was already bytes, and an empty one', async () => {
    const bytes = Buffer.from('{"a":"é\\n"}');
    const decoded = (await decodeRecord(await encodeDone('f', { status: 200, body: bytes }))) as { response: { body: Buffer } };
    expect(decoded.response.body.equals(bytes)).toBe(true);
    expect(await decodeRecord(await encodeDone('f', { status: 204, body: undefined }))).toEqual({ state: 'done', fingerprint: 'f', response: { status: 204, body: undefined } });
  });

  it('still reads the plain JSON of a claim and of a record written before compression', async () => {
    expect(await decodeRecord(Buffer.from('{"state":"processing","token":"t","fingerprint":"f"}'))).toEqual({ state: 'processing', token: 't', fingerprint: 'f' });
    const legacy = { state: 'done', fingerprint: 'f', response: { status: 200, body: { ok: true } } };
    expect(await decodeRecord(Buffer.from(JSON.stringify(legacy)))).toEqual(legacy);
  });
});
