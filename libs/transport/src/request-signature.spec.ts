import { DEADLINE_HEADER, REQUEST_ID_HEADER } from '@dc/contracts';
import { headers, MsgHdrs } from 'nats';
import { randomBytes } from 'node:crypto';
import { CLAIM_CHECK_HEADER, CLAIM_DIGEST_HEADER, CONTENT_ENCODING_HEADER } from './payload-codec';
import { SIGNATURE_HEADER, signRequest, SigningKeys, verifyRequest } from './request-signature';

const NOW = 1_800_000_000_000;
const subject = 'dc.debtors.list';
const body = Buffer.from(JSON.stringify({ pattern: 'debtors.list', id: 'p1', data: { auth: { organizationId: 'org_A' }, input: {} } }));

function signed(keys: SigningKeys, deadline = NOW + 5_000, bytes: Uint8Array = body, subj = subject): MsgHdrs {
  const h = headers();
  h.set(REQUEST_ID_HEADER, 'req_1');
  h.set(DEADLINE_HEADER, String(deadline));
  signRequest(keys, subj, h, bytes);
  return h;
}

describe('request signatures', () => {
  const keys: SigningKeys = { current: randomBytes(32), previous: [] };

  it('a request signed with the current key is valid', () => {
    const h = signed(keys);
    expect(h.get(SIGNATURE_HEADER)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(verifyRequest(keys, subject, h, body, NOW)).toBe('valid');
  });

  it('a tampered body (another organization) is invalid', () => {
    const h = signed(keys);
    const forged = Buffer.from(body.toString().replace('org_A', 'org_B'));
    expect(verifyRequest(keys, subject, h, forged, NOW)).toBe('invalid');
  });

  it('the same message on another subject (an operator pattern) is invalid', () => {
    expect(verifyRequest(keys, 'dc.operator.api-keys.create', signed(keys), body, NOW)).toBe('invalid');
  });

  it('a changed request id, deadline or encoding header is invalid', () => {
    for (const [name, value] of [
      [REQUEST_ID_HEADER, 'req_2'],
      [DEADLINE_HEADER, String(NOW + 60_000)],
      [CONTENT_ENCODING_HEADER, 'gzip'],
      [CLAIM_CHECK_HEADER, 'ref'],
      [CLAIM_DIGEST_HEADER, 'x'],
    ]) {
      const h = signed(keys);
      h.set(name, value);
      expect([name, verifyRequest(keys, subject, h, body, NOW)]).toEqual([name, 'invalid']);
    }
  });

  it('a genuine request past its deadline is expired', () => {
    const h = signed(keys, NOW + 5_000);
    expect(verifyRequest(keys, subject, h, body, NOW + 4_999)).toBe('valid');
    expect(verifyRequest(keys, subject, h, body, NOW + 5_000)).toBe('expired');
  });

  it('a key we do not hold, a missing signature or a missing deadline is refused', () => {
    const other: SigningKeys = { current: randomBytes(32), previous: [] };
    expect(verifyRequest(keys, subject, signed(other), body, NOW)).toBe('invalid');
    expect(verifyRequest(keys, subject, undefined, body, NOW)).toBe('missing');
    const unsigned = headers();
    unsigned.set(DEADLINE_HEADER, String(NOW + 5_000));
    expect(verifyRequest(keys, subject, unsigned, body, NOW)).toBe('missing');
    const noDeadline = signed(keys);
    noDeadline.delete(DEADLINE_HEADER);
    expect(verifyRequest(keys, subject, noDeadline, body, NOW)).toBe('missing');
    const short = signed(keys);
    short.set(SIGNATURE_HEADER, 'c2hvcnQ=');
    expect(verifyRequest(keys, subject, short, body, NOW)).toBe('invalid');
  });

  it('rotation: a request signed with a previous key is still accepted while that key is listed', () => {
    const old = randomBytes(32);
    const h = signed({ current: old, previous: [] });
    const rotated: SigningKeys = { current: randomBytes(32), previous: [old] };
    expect(verifyRequest(rotated, subject, h, body, NOW)).toBe('valid');
    expect(verifyRequest({ current: rotated.current, previous: [] }, subject, h, body, NOW)).toBe('invalid');
  });
});
