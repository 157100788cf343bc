-- Promises become partitioned by month on their ids (docs/adr/0051). The payments' key to promises
-- is re-pointed at the partitioned table NOT VALID; the next migration validates it. Payments stay
-- whole: their externalId is unique per portfolio over all time.
SELECT dc_partition_table('promises');

DROP FUNCTION dc_partition_table(text);
DROP FUNCTION dc_lock_tables(text[], text[]);
