/** Webhook event kinds (spec: Events). */
export const WebhookEventType = {
  PaymentRegistered: 'payment.registered',
  PromiseCreated: 'promise.created',
  CallCompleted: 'call.completed',
} as const;
export type WebhookEventType = (typeof WebhookEventType)[keyof typeof WebhookEventType];
