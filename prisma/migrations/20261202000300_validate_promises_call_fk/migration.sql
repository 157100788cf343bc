-- Validates the promises' key to the partitioned calls (a scan of promises under SHARE UPDATE
-- EXCLUSIVE: reads and writes go on). Promises can only be swapped with their keys valid.
ALTER TABLE promises VALIDATE CONSTRAINT promises_call_id_fkey;
