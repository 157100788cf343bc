-- Validates the payments' key to the partitioned promises (a scan of payments under SHARE UPDATE
-- EXCLUSIVE: reads and writes go on).
ALTER TABLE payments VALIDATE CONSTRAINT payments_promise_id_fkey;
