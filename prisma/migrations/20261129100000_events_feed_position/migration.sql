-- The events feed's order is assigned by the relay, not by the writer's transaction id (issue 37,
-- docs/adr/0048). Ordering by xid made the feed and every delivery wait for the oldest write
-- transaction of the cluster, an import's chunk included: one tenant's load delayed another's
-- webhooks (the noisy-neighbour suite measured B's delivery p99 at 1.36 s against 0.30 s quiet).
-- Keep in step with prisma/schema.prisma.
DROP INDEX outbox_events_portfolio_feed_idx;
ALTER TABLE outbox_events DROP COLUMN xid;

-- feed_position: given by the relay when it takes the event, in transactions that take an
-- advisory lock and so commit one after the other: positions only grow in commit order, and a
-- reader that sees a position sees every smaller one. NULL until relayed (not listed yet). The
-- constant default makes ADD COLUMN rewrite nothing: events written before this release read 0 and
-- come first, in id order; dropped at once, so new rows start NULL.
CREATE SEQUENCE outbox_events_feed_position_seq AS bigint;
ALTER TABLE outbox_events ADD COLUMN feed_position bigint DEFAULT 0;
ALTER TABLE outbox_events ALTER COLUMN feed_position DROP DEFAULT;
-- A feed page per reachable portfolio, in page order (the keyset rule of every list, docs/adr/0023).
CREATE INDEX outbox_events_portfolio_feed_idx ON outbox_events (portfolio_id, feed_position, id);
