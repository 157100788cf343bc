import { createHmac } from 'node:crypto';
import { serviceSignature } from '@dc/webhooks';
import Stripe from 'stripe';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

/**
 * The client's verifier against the platform's own signer (libs/webhooks, what the dispatcher sends)
 * and against Stripe's verifier, whose scheme the platform follows (spec: Webhooks).
 */
const SECRET = `whsec_${'Ab3+'.repeat(10)}xyz`;
const BODY = '{"id":"dlv_01JX","eventId":"evt_01JX","type":"payment.registered","createdAt":"2026-11-23T10:00:00.000Z","livemode":false,"data":{"id":"pay_1","amount":12.5,"note":"café ✓"}}';
const T = 1_764_000_000;
const AT_T = new Date(T * 1000);
const stripe = new Stripe('sk_test_unused');

const reasonOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return 'accepted';
};

describe('verifyWebhook', () => {
  it("accepts the platform signer's header over the raw bytes (Buffer, Uint8Array or string) and returns the event", () => {
    const header = serviceSignature(SECRET, BODY, T);
    const expected = JSON.parse(BODY);
    expect(verifyWebhook(Buffer.from(BODY), { 'x-service-signature': header }, SECRET, { now: AT_T })).toEqual(expected);
    expect(verifyWebhook(new TextEncoder().encode(BODY), new Headers({ 'X-Service-Signature': header }), SECRET, { now: AT_T })).toEqual(expected);
    expect(verifyWebhook(BODY, { 'X-Service-Signature': header }, SECRET, { now: T * 1000 })).toEqual(expected);
  });

  it('reads a Uint8Array that is a view into a larger buffer by its own bytes only', () => {
    const header = serviceSignature(SECRET, BODY, T);
    const padded = Buffer.concat([Buffer.from('xxxx'), Buffer.from(BODY), Buffer.from('yyyy')]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 4, Buffer.byteLength(BODY));
    expect(verifyWebhook(view, { 'x-service-signature': header }, SECRET, { now: AT_T }).id).toBe('dlv_01JX');
  });

  it('agrees with Stripe on what it accepts and refuses', () => {
    const now = Math.floor(Date.now() / 1000);
    const header = serviceSignature(SECRET, BODY, now);
    expect(verifyWebhook(Buffer.from(BODY), { 'x-service-signature': header }, SECRET)).toEqual(stripe.webhooks.constructEvent(Buffer.from(BODY), header, SECRET));
    const tampered = BODY.replace('12.5', '12.6');
    expect(() => stripe.webhooks.constructEvent(tampered, header, SECRET)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(reasonOf(() => verifyWebhook(tampered, { 'x-service-signature': header }, SECRET))).toBe('signature_mismatch');
  });

  it('refuses a changed byte, a re-serialised body, another secret, and a secret without its whsec_ prefix', () => {
    const header = { 'x-service-signature': serviceSignature(SECRET, BODY, T) };
    const now = { now: AT_T };
    expect(reasonOf(() => verifyWebhook(BODY.replace('café', 'cafe'), header, SECRET, now))).toBe('signature_mismatch');
    expect(reasonOf(() => verifyWebhook(JSON.stringify(JSON.parse(BODY), null, 1), header, SECRET, now))).toBe('signature_mismatch');
    expect(reasonOf(() => verifyWebhook(BODY, header, `${SECRET}x`, now))).toBe('signature_mismatch');
    expect(reasonOf(() => verifyWebhook(BODY, header, SECRET.slice('whsec_'.length), now))).toBe('signature_mismatch');
  });

  it('accepts any one of several v1 entries and ignores other schemes', () => {
    const good = serviceSignature(SECRET, BODY, T).split(',')[1];
    const other = `v1=${'0'.repeat(64)}`;
    expect(verifyWebhook(BODY, { 'x-service-signature': `t=${T},${other},v0=abc,${good}` }, SECRET, { now: AT_T }).type).toBe('payment.registered');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-service-signature': `t=${T},${other}` }, SECRET, { now: AT_T }))).toBe('signature_mismatch');
  });

  it("during a secret rotation's overlap (two v1s, one per secret) accepts either secret, and refuses a third", () => {
    const previous = `whsec_${'Zy9/'.repeat(10)}abc`;
    const other = `whsec_${'Qq1+'.repeat(10)}def`;
    const header = { 'x-service-signature': serviceSignature([SECRET, previous], BODY, T) };
    expect(header['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const now = { now: AT_T };
    expect(verifyWebhook(BODY, header, SECRET, now)).toEqual(JSON.parse(BODY));
    expect(verifyWebhook(BODY, header, previous, now)).toEqual(JSON.parse(BODY));
    // The old secret's v1 first works too: the order is not significant.
    expect(verifyWebhook(BODY, { 'x-service-signature': serviceSignature([previous, SECRET], BODY, T) }, SECRET, now).id).toBe('dlv_01JX');
    expect(reasonOf(() => verifyWebhook(BODY, header, other, now))).toBe('signature_mismatch');
    expect(reasonOf(() => verifyWebhook(BODY.replace('12.5', '12.6'), header, previous, now))).toBe('signature_mismatch');
    // Stripe's verifier agrees on both secrets.
    const live = { 'x-service-signature': serviceSignature([SECRET, previous], BODY, Math.floor(Date.now() / 1000)) };
    for (const secret of [SECRET, previous]) {
      expect(verifyWebhook(BODY, live, secret)).toEqual(stripe.webhooks.constructEvent(BODY, live['x-service-signature'], secret));
    }
  });

  it('refuses a t outside the tolerance, in either direction, and accepts it at the edge', () => {
    const header = { 'x-service-signature': serviceSignature(SECRET, BODY, T) };
    expect(reasonOf(() => verifyWebhook(BODY, header, SECRET, { now: (T + 301) * 1000 }))).toBe('timestamp_outside_tolerance');
    expect(reasonOf(() => verifyWebhook(BODY, header, SECRET, { now: (T - 301) * 1000 }))).toBe('timestamp_outside_tolerance');
    expect(reasonOf(() => verifyWebhook(BODY, header, SECRET, { now: (T + 300) * 1000 }))).toBe('accepted');
    expect(reasonOf(() => verifyWebhook(BODY, header, SECRET, { now: (T + 60) * 1000, toleranceSeconds: 30 }))).toBe('timestamp_outside_tolerance');
  });

  it('names a missing or malformed header', () => {
    const v1 = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(reasonOf(() => verifyWebhook(BODY, {}, SECRET))).toBe('missing_signature');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-service-signature': `v1=${v1}` }, SECRET))).toBe('malformed_signature');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-service-signature': `t=${T}` }, SECRET))).toBe('malformed_signature');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-service-signature': `t=soon,v1=${v1}` }, SECRET))).toBe('malformed_signature');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-service-signature': `t=${T},t=${T},v1=${v1}` }, SECRET))).toBe('malformed_signature');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-service-signature': `t=${T},v1=${v1}` }, SECRET, { now: AT_T }))).toBe('accepted');
  });

  it('refuses an authentic body that is not JSON', () => {
    const header = { 'x-service-signature': serviceSignature(SECRET, 'not json', T) };
    expect(reasonOf(() => verifyWebhook('not json', header, SECRET, { now: AT_T }))).toBe('invalid_payload');
  });
});
