-- Validates each table's range check (docs/adr/0051): a scan under SHARE UPDATE EXCLUSIVE, which
-- lets reads and writes go on; a validated check lets the swap attach the table without a scan.
ALTER TABLE outbox_events VALIDATE CONSTRAINT outbox_events_before_partitions;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_before_partitions;
ALTER TABLE webhook_delivery_attempts VALIDATE CONSTRAINT webhook_delivery_attempts_before_partitions;
