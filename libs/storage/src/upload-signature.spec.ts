import { createHmac } from 'node:crypto';
import { localUploadUrl, signUpload, verifyUpload } from './upload-signature';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);
const STORAGE_KEY = 'portfolios/pf_01JX/uploads/upl_01JY.csv';

describe('signUpload', () => {
  it('is the lowercase hex HMAC-SHA256 of "<key>\\n<expires>"', () => {
    const expected = createHmac('sha256', KEY).update(`${STORAGE_KEY}\n1700000000`).digest('hex');
    expect(signUpload(STORAGE_KEY, 1_700_000_000, KEY)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('verifyUpload', () => {
  const signature = signUpload(STORAGE_KEY, 1_700_000_000, KEY);

  it('accepts the signature of the same key, expiry and signing key', () => {
    expect(verifyUpload(STORAGE_KEY, 1_700_000_000, signature, KEY)).toBe(true);
  });

  it.each([
    ['another storage key', 'portfolios/pf_01JX/uploads/upl_01JZ.csv', 1_700_000_000, signature, KEY],
    ['another expiry', STORAGE_KEY, 1_700_000_001, signature, KEY],
    ['another signing key', STORAGE_KEY, 1_700_000_000, signature, OTHER_KEY],
    ['one changed digit', STORAGE_KEY, 1_700_000_000, signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0'), KEY],
    ['uppercase hex', STORAGE_KEY, 1_700_000_000, signature.toUpperCase(), KEY],
    ['a truncated signature', STORAGE_KEY, 1_700_000_000, signature.slice(0, 62), KEY],
    ['an empty signature', STORAGE_KEY, 1_700_000_000, '', KEY],
    ['a non-integer expiry', STORAGE_KEY, Number.NaN, signature, KEY],
    ['a negative expiry', STORAGE_KEY, -1, signature, KEY],
  ])('refuses %s', (_what, key, expires, sig, signingKey) => {
    expect(verifyUpload(key as string, expires as number, sig as string, signingKey as Buffer)).toBe(false);
  });
});

describe('localUploadUrl', () => {
  it('puts the encoded key, the expiry and the signature on the gateway route', () => {
    const url = localUploadUrl('http://127.0.0.1:3000/', STORAGE_KEY, 1_700_000_000, KEY);
    expect(url).toBe(
      `http://127.0.0.1:3000/public/uploads/portfolios%2Fpf_01JX%2Fuploads%2Fupl_01JY.csv?expires=1700000000&signature=${signUpload(STORAGE_KEY, 1_700_000_000, KEY)}`,
    );
    const parsed = new URL(url);
    expect(decodeURIComponent(parsed.pathname.slice('/public/uploads/'.length))).toBe(STORAGE_KEY);
  });
});
