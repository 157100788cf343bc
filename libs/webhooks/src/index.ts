// Webhook security primitives shared by api-core (registration) and the webhook-dispatcher (delivery).
