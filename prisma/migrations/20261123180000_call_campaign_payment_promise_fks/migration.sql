-- calls.campaign_id and payments.promise_id were the only reference columns without a foreign key
-- (the application already checks both before writing). Keep in step with prisma/schema.prisma.
-- NOT VALID: new rows are checked at once, without scanning the tables under a lock that blocks
-- writes; existing rows are checked by the next migration, in its own transaction, which lets
-- writes continue (online-compatible, docs/adr/0007).
ALTER TABLE calls ADD CONSTRAINT calls_campaign_id_fkey FOREIGN KEY (campaign_id) REFERENCES campaigns(id) NOT VALID;
ALTER TABLE payments ADD CONSTRAINT payments_promise_id_fkey FOREIGN KEY (promise_id) REFERENCES promises(id) NOT VALID;
