import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import Stripe from 'stripe';
import { generateWebhookSecret } from './secret';
import { EVENT_TYPE_HEADER, serviceSignature, SIGNATURE_HEADER, standardWebhooksHeaders } from './signature';

const BODY = '{"id":"dlv_1","type":"payment.created","createdAt":"2026-11-23T10:00:00.000Z","livemode":false,"data":{"amount":"12.50","note":"café ✓"}}';
/** One byte changed: 12.50 → 12.51. */
const CHANGED = BODY.replace('12.50', '12.51');
const stripe = new Stripe('sk_test_x');
const now = () => Math.floor(Date.now() / 1000);

describe('header names', () => {
  it('are lowercase and fixed', () => {
    expect(SIGNATURE_HEADER).toBe('x-service-signature');
    expect(EVENT_TYPE_HEADER).toBe('x-service-event');
  });
});

describe('serviceSignature', () => {
  it('matches a known answer computed independently', () => {
    const secret = 'whsec_' + 'A'.repeat(43);
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(`1764000000.${BODY}`, 'utf8')).digest('hex');
    expect(serviceSignature(secret, BODY, 1_764_000_000)).toBe(`t=1764000000,v1=${expected}`);
    expect(serviceSignature(secret, Buffer.from(BODY), 1_764_000_000)).toBe(`t=1764000000,v1=${expected}`);
  });

  it('matches a frozen vector (printf "1.{}" | openssl dgst -sha256 -hmac whsec_test)', () => {
    expect(serviceSignature('whsec_test', '{}', 1)).toBe('t=1,v1=7500d5d4be4b3ef07af1fe56f7d522d135cdaa7530de557e67cc1049c52de094');
  });

  it("is accepted by Stripe's verifier, which rejects a one-byte change of the body", () => {
    const secret = generateWebhookSecret();
    const header = serviceSignature(secret, BODY, now());
    const event = stripe.webhooks.constructEvent(BODY, header, secret) as unknown as { id: string; data: { note: string } };
    expect(event.id).toBe('dlv_1');
    expect(event.data.note).toBe('café ✓');
    expect(Stripe.webhooks.constructEvent(Buffer.from(BODY), header, secret)).toEqual(event);
    expect(() => stripe.webhooks.constructEvent(CHANGED, header, secret)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => stripe.webhooks.constructEvent(BODY, header, generateWebhookSecret())).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it("carries its own timestamp, which Stripe's tolerance checks", () => {
    const secret = generateWebhookSecret();
    const header = serviceSignature(secret, BODY, now() - 3600);
    expect(() => stripe.webhooks.constructEvent(BODY, header, secret)).toThrow('Timestamp outside the tolerance zone');
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => serviceSignature('whsec_x', BODY, 1.5)).toThrow(RangeError);
    expect(() => serviceSignature('whsec_x', BODY, -1)).toThrow(RangeError);
  });
});

describe('standardWebhooksHeaders', () => {
  it('matches a known answer computed independently', () => {
    const key = Buffer.alloc(32, 7);
    const secret = `whsec_${key.toString('base64').replace(/=+$/, '')}`;
    const expected = createHmac('sha256', key).update(`dlv_1.1764000000.${BODY}`).digest('base64');
    expect(standardWebhooksHeaders(secret, 'dlv_1', BODY, 1_764_000_000)).toEqual({
      'webhook-id': 'dlv_1',
      'webhook-timestamp': '1764000000',
      'webhook-signature': `v1,${expected}`,
    });
  });

  it('is accepted by the standardwebhooks library, which rejects a changed body', () => {
    const secret = generateWebhookSecret();
    const headers = standardWebhooksHeaders(secret, 'dlv_42', BODY, now());
    expect(new Webhook(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(() => new Webhook(secret).verify(CHANGED, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(generateWebhookSecret()).verify(BODY, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(BODY, { ...headers, 'webhook-id': 'dlv_43' })).toThrow(WebhookVerificationError);
  });

  it('signs the same bytes whether the body is a string or a Buffer', () => {
    const secret = generateWebhookSecret();
    expect(standardWebhooksHeaders(secret, 'dlv_1', Buffer.from(BODY), 1_764_000_000)).toEqual(standardWebhooksHeaders(secret, 'dlv_1', BODY, 1_764_000_000));
  });
});

describe('several secrets (a rotation\'s overlap, docs/adr/0048)', () => {
  const [current, previous, other] = [generateWebhookSecret(), generateWebhookSecret(), generateWebhookSecret()];

  it('X-Service-Signature carries one v1 per secret, the first secret first; Stripe accepts either secret, not a third', () => {
    const t = now();
    const header = serviceSignature([current, previous], BODY, t);
    const single = (secret: string) => serviceSignature(secret, BODY, t).split(',')[1];
    expect(header).toBe(`t=${t},${single(current)},${single(previous)}`);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    for (const secret of [current, previous]) expect(stripe.webhooks.constructEvent(BODY, header, secret)).toEqual(JSON.parse(BODY));
    expect(() => stripe.webhooks.constructEvent(BODY, header, other)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => stripe.webhooks.constructEvent(CHANGED, header, current)).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('webhook-signature lists one v1 per secret, space-separated; the standardwebhooks library accepts either secret, not a third', () => {
    const t = now();
    const headers = standardWebhooksHeaders([current, previous], 'dlv_7', BODY, t);
    const single = (secret: string) => standardWebhooksHeaders(secret, 'dlv_7', BODY, t)['webhook-signature'];
    expect(headers['webhook-signature']).toBe(`${single(current)} ${single(previous)}`);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(() => new Webhook(other).verify(BODY, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(previous).verify(CHANGED, headers)).toThrow(WebhookVerificationError);
  });

  it('one secret in a list signs as that secret alone; an empty list is refused', () => {
    expect(serviceSignature([current], BODY, 1_764_000_000)).toBe(serviceSignature(current, BODY, 1_764_000_000));
    expect(standardWebhooksHeaders([current], 'dlv_1', BODY, 1_764_000_000)).toEqual(standardWebhooksHeaders(current, 'dlv_1', BODY, 1_764_000_000));
    expect(() => serviceSignature([], BODY, 1)).toThrow(RangeError);
    expect(() => standardWebhooksHeaders([], 'dlv_1', BODY, 1)).toThrow(RangeError);
  });
});
