-- Observability (issue 15, docs/adr/0032). Keep in step with prisma/schema.prisma.

-- The request id of the API request that wrote the event: the relay copies it into each delivery's
-- job, so the dispatcher's log lines about a delivery carry the id of the request that caused it.
-- Nullable, no default: adding it rewrites nothing; events written before it have none.
ALTER TABLE outbox_events ADD COLUMN request_id text;
