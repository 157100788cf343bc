-- Checks the rows that existed before 20261123180000 (VALIDATE takes a lock that allows writes).
ALTER TABLE calls VALIDATE CONSTRAINT calls_campaign_id_fkey;
ALTER TABLE payments VALIDATE CONSTRAINT payments_promise_id_fkey;
