import type { CreatedWebhookView, WebhookDeliveryView } from '@dc/contracts';
import { OperatorClient, ReceivedRequest, ServiceProcess, Stack, withDatabase } from '@dc/testing';
import Stripe from 'stripe';

/**
 * Shared by the webhook-dispatcher end-to-end files (spec: Events; README, Operator API;
 * docs/adr/0020): the stack environment, registration and delivery-log helpers, and the
 * receivers' view of signatures through the `stripe` library's own verifier.
 */

export const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
export const DELIVERY_ID = /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/;
/** The body's `eventId`: the outbox event's id (docs/adr/0048). */
export const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
export const SIGNATURE_HEADER = /^t=(\d+),v1=([0-9a-f]{64})$/;

/**
 * Environment of every service of a webhook test stack: receivers are http://127.0.0.1, so private
 * targets are allowed (api-core's registration and the dispatcher alike); timings shortened.
 */
export function webhookStackEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RELAY_INTERVAL_MS: '100',
    WEBHOOK_RETRY_DELAY_MS: '1100',
    WEBHOOK_RETRY_JITTER_MS: '0',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
    ...overrides,
  };
}

export async function startDispatcher(stack: Stack, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dispatcher = await stack.startService('webhook-dispatcher', env);
  await dispatcher.waitForLog((l) => l.msg === 'webhook-dispatcher ready', 20_000);
  return dispatcher;
}

export type CreatedWebhook = CreatedWebhookView;

/** POST /operator/v1/organizations/{id}/webhooks, checking the 201 shape of the contract. */
export async function registerWebhook(
  operator: OperatorClient,
  organizationId: string,
  body: { url: string; portfolioIds?: string[]; standardWebhooks?: boolean },
): Promise<CreatedWebhook> {
  const res = await operator.expect<{ data: CreatedWebhook }>(201, 'POST', `/organizations/${organizationId}/webhooks`, body);
  expect(res.data).toEqual({
    id: expect.any(String),
    organizationId,
    url: body.url,
    portfolioIds: body.portfolioIds ?? [],
    enabled: true,
    failingSince: null,
    disabledAt: null,
    disabledReason: null,
    standardWebhooks: body.standardWebhooks ?? false,
    previousSecretExpiresAt: null,
    createdAt: ISO,
    updatedAt: ISO,
    secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}$/),
  });
  return res.data;
}

export type DeliveryView = WebhookDeliveryView;

/** GET /operator/v1/webhooks/{id}/deliveries, every page (newest first). */
export async function listDeliveries(operator: OperatorClient, webhookId: string): Promise<DeliveryView[]> {
  const all: DeliveryView[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : '?limit=100';
    const res = await operator.expect<{ data: DeliveryView[]; pagination: { hasMore: boolean; nextCursor: string | null } }>(
      200, 'GET', `/webhooks/${webhookId}/deliveries${query}`);
    all.push(...res.data);
    cursor = res.pagination.nextCursor;
  } while (cursor);
  return all;
}

const stripe = new Stripe('sk_test_unused');

/**
 * What a receiver built on the `stripe` library does: verify X-Service-Signature over the raw body
 * bytes (throws on any mismatch or a `t` older than 5 minutes) and parse it.
 */
export function stripeVerify(request: ReceivedRequest, secret: string, rawBody: Buffer = request.rawBody): any {
  const header = request.header('x-service-signature');
  if (header === undefined) throw new Error('no x-service-signature header');
  return stripe.webhooks.constructEvent(rawBody, header, secret);
}

/** The `t` of X-Service-Signature, in Unix seconds. */
export function signatureTime(request: ReceivedRequest): number {
  const match = SIGNATURE_HEADER.exec(request.header('x-service-signature') ?? '');
  if (!match) throw new Error(`malformed x-service-signature: ${String(request.header('x-service-signature'))}`);
  return Number(match[1]);
}

/** The raw body with one byte changed (a flipped bit in the middle of `data`). */
export function tampered(rawBody: Buffer): Buffer {
  const copy = Buffer.from(rawBody);
  const at = Math.floor(copy.length / 2);
  copy[at] = copy[at] ^ 0x01;
  return copy;
}

type Sql = Parameters<Parameters<typeof withDatabase>[1]>[0];
export const sqlOn = (stack: Stack) => <T>(fn: (client: Sql) => Promise<T>) => withDatabase(stack.databaseUrl, fn);

/** GET {public}/public/v1{path} with an API key; the parsed JSON body. */
export async function publicGet(stack: Stack, key: string, path: string): Promise<any> {
  const res = await fetch(`${stack.publicUrl}/public/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body: unknown = await res.json();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export async function publicPost(stack: Stack, key: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${stack.publicUrl}/public/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Requests whose body is the event of resource `resourceId` (data.id) of kind `type`. */
export const forResource = (type: string, resourceId: string) => (r: ReceivedRequest): boolean => {
  try {
    const body = r.json<{ type?: string; data?: { id?: string } }>();
    return body.type === type && body.data?.id === resourceId;
  } catch {
    return false;
  }
};
