-- Webhook delivery (docs/adr/0020). Keep in step with prisma/schema.prisma.

-- The event's `data` is stored as the exact JSON text api-core wrote (json keeps key order and
-- bytes; jsonb reorders keys), so the dispatcher splices it into the body without re-serialising.
-- Rewrites the table once; before this release nothing read it.
ALTER TABLE outbox_events ALTER COLUMN payload TYPE json USING payload::json;

-- Opt-in Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature).
ALTER TABLE webhooks ADD COLUMN standard_webhooks boolean NOT NULL DEFAULT false;
-- Registration lists, and the relay matches, live webhooks of an organization.
CREATE INDEX webhooks_live_organization_idx ON webhooks (organization_id, id) WHERE deleted_at IS NULL;

-- A delivery is sent in series of up to WEBHOOK_MAX_ATTEMPTS attempts: series 1 from the relay, one
-- more per operator redelivery. series_start is attempt_count when the series began.
-- queued_at is set once the delivery's BullMQ job exists; rows without it are (re-)enqueued by the
-- dispatcher (a crash between the relay's commit and the enqueue, or a redelivery).
-- cancelled: the webhook was disabled or deleted, or the organization suspended, before it finished.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check
  CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled'));
ALTER TABLE webhook_deliveries
  ADD COLUMN series integer NOT NULL DEFAULT 1,
  ADD COLUMN series_start integer NOT NULL DEFAULT 0,
  ADD COLUMN queued_at timestamptz(3),
  ADD COLUMN completed_at timestamptz(3);
CREATE INDEX webhook_deliveries_unqueued_idx ON webhook_deliveries (id) WHERE queued_at IS NULL AND status = 'pending';
-- Pruning finds an event's deliveries.
CREATE INDEX webhook_deliveries_event_id_idx ON webhook_deliveries (event_id);

-- What each attempt met: the class of error (timeout, connection, tls, refused_address, http_status…)
-- and the address the dispatcher connected to.
ALTER TABLE webhook_delivery_attempts
  ADD COLUMN series integer NOT NULL DEFAULT 1,
  ADD COLUMN error_class text,
  ADD COLUMN address text;
