import { canonicalJson, requestFingerprint } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: null } })).toBe('{"a":{"c":null,"d":[3,1]},"b":1}');
  });

  it('ignores undefined properties like JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });
});

describe('requestFingerprint', () => {
  const body = { debtors: [{ externalId: 'a', phones: ['+1', '+2'] }] };

  it('is the same for the same request written differently', () => {
    const reordered = JSON.parse('{"debtors":[{"phones":["+1","+2"],"externalId":"a"}]}');
    expect(requestFingerprint('post', '/p/1', body)).toBe(requestFingerprint('POST', '/p/1', reordered));
  });

  it('differs by path (portfolio), array order and body', () => {
    const base = requestFingerprint('POST', '/p/1', body);
    expect(requestFingerprint('POST', '/p/2', body)).not.toBe(base);
    expect(requestFingerprint('POST', '/p/1', { debtors: [{ externalId: 'a', phones: ['+2', '+1'] }] })).not.toBe(base);
  });
});
