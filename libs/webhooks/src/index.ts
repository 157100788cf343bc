// Webhook security primitives shared by api-core (registration) and the webhook-dispatcher (delivery).
export * from './secret';
export * from './secret-box';
export * from './signature';
export * from './event-body';
export * from './public-address';
export * from './address-lookup';
export * from './webhook-url';
export * from './attempt-error';
export * from './guarded-connector';
export * from './webhook-http-client';
export * from './webhook-disabling';
