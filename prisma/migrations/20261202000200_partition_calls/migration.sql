-- Calls become partitioned by month on their ids (docs/adr/0051): catalogue work under locks held
-- for milliseconds. The promises' key to calls is re-pointed at the partitioned table NOT VALID; the
-- next migration validates it.
SELECT dc_partition_table('calls');
