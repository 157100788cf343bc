-- Events API, recovery of failed deliveries, automatic disabling, secret rotation (issue 37,
-- docs/adr/0048). Keep in step with prisma/schema.prisma.

-- The feed's order: the id of the transaction that wrote the event (pg_current_xact_id(), 64-bit,
-- never wraps), then the event id. The feed and the relay serve only events whose transaction is
-- older than every transaction still running (pg_snapshot_xmin of the statement's snapshot), so an
-- event that commits late can never appear behind a position a client already read. The constant
-- default makes ADD COLUMN rewrite nothing: events written before this release read 0 (they come
-- first, in id order); new rows get their transaction's id.
ALTER TABLE outbox_events ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE outbox_events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
-- A feed page per reachable portfolio, in page order (the keyset rule of every list, docs/adr/0023).
CREATE INDEX outbox_events_portfolio_feed_idx ON outbox_events (portfolio_id, xid, id);

-- Automatic disabling: failing_since is the first failed attempt since the last success (null while
-- the last attempt succeeded); a webhook failing for WEBHOOK_DISABLE_AFTER_DAYS is disabled, the
-- reason and time recorded. An operator's enable clears all three.
ALTER TABLE webhooks
  ADD COLUMN failing_since timestamptz(3),
  ADD COLUMN disabled_at timestamptz(3),
  ADD COLUMN disabled_reason text;

-- Secret rotation: the secret being replaced, sealed like the current one, used beside it to sign
-- until previous_secret_expires_at.
ALTER TABLE webhooks
  ADD COLUMN previous_secret_ciphertext text,
  ADD COLUMN previous_secret_expires_at timestamptz(3);

-- Recovery finds a webhook's deliveries that ended failed in a window.
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (webhook_id, completed_at) WHERE status = 'failed';
