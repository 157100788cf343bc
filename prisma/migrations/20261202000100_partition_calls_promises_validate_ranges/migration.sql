-- Validates the range checks of calls and promises (docs/adr/0051): a scan under SHARE UPDATE
-- EXCLUSIVE, which lets reads and writes go on; a validated check lets the swap attach the table
-- without a scan.
ALTER TABLE promises VALIDATE CONSTRAINT promises_before_partitions;
ALTER TABLE calls VALIDATE CONSTRAINT calls_before_partitions;
