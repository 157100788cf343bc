import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { signedRequest } from './signed-request';

const secret = `whsec_${randomBytes(32).toString('base64').replace(/=+$/, '')}`;
const content = {
  deliveryId: 'dlv_01JDELIVERY0000000000000000',
  eventId: 'evt_01JDEVENT000000000000000000',
  type: 'payment.registered',
  eventCreatedAt: '2026-11-24T10:00:00.123Z',
  livemode: false,
  payload: '{"id":"pay_1","amount":12.5,"note":"ünïcode"}',
};

describe('signedRequest', () => {
  const now = Math.floor(Date.now() / 1000);

  it('builds the body with the delivery id, the event id and the stored data spliced in unchanged', () => {
    const { body } = signedRequest(content, secret, false, now);
    expect(JSON.parse(body)).toEqual({
      id: content.deliveryId,
      eventId: content.eventId,
      type: 'payment.registered',
      createdAt: '2026-11-24T10:00:00.123Z',
      livemode: false,
      data: { id: 'pay_1', amount: 12.5, note: 'ünïcode' },
    });
    expect(body).toContain(content.payload);
    expect(Object.keys(JSON.parse(body))).toEqual(['id', 'eventId', 'type', 'createdAt', 'livemode', 'data']);
  });

  it('signs so that the stripe library verifies the raw bytes with the whole whsec_ secret', () => {
    const { body, headers } = signedRequest(content, secret, false, now);
    expect(headers['x-service-signature']).toMatch(new RegExp(`^t=${now},v1=[0-9a-f]{64}$`));
    const event = new Stripe('sk_test_unused').webhooks.constructEvent(Buffer.from(body, 'utf8'), headers['x-service-signature'], secret);
    expect(event.id).toBe(content.deliveryId);
  });

  it('names the event kind, the content type and the user agent; no Standard Webhooks headers unless opted in', () => {
    const { headers } = signedRequest(content, secret, false, now);
    expect(headers).toMatchObject({ 'x-service-event': 'payment.registered', 'content-type': 'application/json' });
    expect(headers['user-agent']).toMatch(/\/1$/);
    expect(Object.keys(headers).filter((h) => h.startsWith('webhook-'))).toEqual([]);
  });

  it('adds the Standard Webhooks headers when opted in, verified by the standardwebhooks library', () => {
    const { body, headers } = signedRequest(content, secret, true, now);
    expect(headers['webhook-id']).toBe(content.deliveryId);
    expect(headers['webhook-timestamp']).toBe(String(now));
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
  });

  it('a fresh t changes the signature, not the body', () => {
    const a = signedRequest(content, secret, false, now);
    const b = signedRequest(content, secret, false, now + 90);
    expect(a.body).toBe(b.body);
    expect(a.headers['x-service-signature']).not.toBe(b.headers['x-service-signature']);
  });

  it('during a rotation\'s overlap signs with both secrets in both schemes; each library accepts either secret', () => {
    const previous = `whsec_${randomBytes(32).toString('base64').replace(/=+$/, '')}`;
    const { body, headers } = signedRequest(content, [secret, previous], true, now);
    expect(body).toBe(signedRequest(content, secret, true, now).body);
    expect(headers['x-service-signature']).toMatch(new RegExp(`^t=${now},v1=[0-9a-f]{64},v1=[0-9a-f]{64}$`));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2} v1,[A-Za-z0-9+/]+={0,2}$/);
    const stripe = new Stripe('sk_test_unused');
    for (const key of [secret, previous]) {
      expect(stripe.webhooks.constructEvent(Buffer.from(body, 'utf8'), headers['x-service-signature'], key).id).toBe(content.deliveryId);
      expect(() => new Webhook(key).verify(body, headers)).not.toThrow();
    }
  });
});
