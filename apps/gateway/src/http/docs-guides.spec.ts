import { serviceSignature } from '@dc/webhooks';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readGuides } from '../../openapi/guides';

/**
 * The guides of /docs (apps/gateway/openapi/guides, docs/adr/0030): the webhook verification sample
 * a reader copies is the file run here against signatures from the dispatcher's own signer, and the
 * committed document shows exactly that file.
 */
const GUIDES = path.join(__dirname, '../../openapi/guides');
type Verify = (rawBody: Buffer, header: string | undefined, secret: string, toleranceSeconds?: number, nowSeconds?: number) => unknown;
// Plain JavaScript on purpose (what an integrator pastes), so it is required, not imported.
const { verifyWebhook } = require(path.join(GUIDES, 'samples/verify-signature.js')) as { verifyWebhook: Verify };

const SECRET = 'whsec_' + 'A1b2C3d4+/'.repeat(5).slice(0, 43);
const NOW = 1_767_225_600;
// Raw bytes with non-ASCII text and spacing a re-serialisation would change.
const BODY = Buffer.from('{"id":"dlv_01J","type":"payment.registered", "data":{"reference":"reçu nº 7"}}', 'utf8');

describe('webhook verification sample (Node)', () => {
  it('accepts a delivery signed by libs/webhooks and returns the parsed event', () => {
    const header = serviceSignature(SECRET, BODY, NOW);
    expect(verifyWebhook(BODY, header, SECRET, 300, NOW + 299)).toEqual({ id: 'dlv_01J', type: 'payment.registered', data: { reference: 'reçu nº 7' } });
  });

  it('refuses a body changed by one byte, another secret, a stale timestamp and a malformed header', () => {
    const header = serviceSignature(SECRET, BODY, NOW);
    expect(() => verifyWebhook(Buffer.concat([BODY, Buffer.from(' ')]), header, SECRET, 300, NOW)).toThrow('signature mismatch');
    expect(() => verifyWebhook(BODY, header, SECRET.replace('A', 'B'), 300, NOW)).toThrow('signature mismatch');
    expect(() => verifyWebhook(BODY, header, SECRET, 300, NOW + 301)).toThrow('timestamp outside the tolerance');
    expect(() => verifyWebhook(BODY, `t=${NOW}`, SECRET, 300, NOW)).toThrow('malformed X-Service-Signature');
    expect(() => verifyWebhook(BODY, undefined, SECRET, 300, NOW)).toThrow('malformed X-Service-Signature');
  });

  it("accepts either secret of a rotation's overlap (one v1 per secret), and neither a third secret", () => {
    const previous = 'whsec_' + 'Zz9y8X7w/+'.repeat(5).slice(0, 43);
    const header = serviceSignature([SECRET, previous], BODY, NOW);
    expect(header.split(',')).toHaveLength(3);
    for (const secret of [SECRET, previous]) expect(verifyWebhook(BODY, header, secret, 300, NOW)).toMatchObject({ id: 'dlv_01J' });
    expect(() => verifyWebhook(BODY, header, SECRET.replace('A', 'B'), 300, NOW)).toThrow('signature mismatch');
    expect(() => verifyWebhook(Buffer.concat([BODY, Buffer.from(' ')]), header, previous, 300, NOW)).toThrow('signature mismatch');
  });

  it('is keyed with the whole secret string, whsec_ included (a key without the prefix fails)', () => {
    const header = serviceSignature(SECRET, BODY, NOW);
    expect(() => verifyWebhook(BODY, header, SECRET.slice('whsec_'.length), 300, NOW)).toThrow('signature mismatch');
  });
});

describe('guides', () => {
  const text = readGuides(GUIDES);

  it('fill every placeholder: the samples verbatim and the error code table', () => {
    expect(text).not.toMatch(/\{\{/);
    expect(text).toContain(readFileSync(path.join(GUIDES, 'samples/verify-signature.js'), 'utf8').trim());
    expect(text).toContain(readFileSync(path.join(GUIDES, 'samples/verify-signature.py'), 'utf8').trim());
    expect(text).toContain('| 429 | `rate_limited` |');
  });

  it('are the committed document\'s info.description (npm run openapi regenerates it)', () => {
    const document = JSON.parse(readFileSync(path.join(__dirname, '../../../../docs/openapi.json'), 'utf8')) as { info: { description: string } };
    expect(document.info.description).toBe(text);
  });
});
