-- A debt's debtor is checked together with the debt's portfolio: one foreign key
-- (debtor_id, portfolio_id) → debtors (id, portfolio_id) replaces debts_debtor_id_fkey and
-- debts_portfolio_id_fkey. Keep in step with prisma/schema.prisma.
--
-- Stronger: a debt can no longer name a portfolio other than its debtor's (only the application
-- ensured it). The portfolio still exists through debtors_portfolio_id_fkey. Cheaper: Postgres
-- checks a foreign key row by row, and the two checks were half of what inserting a batch's 1,000
-- debts cost (EXPLAIN ANALYZE: 40-47 ms with two, 23-29 ms with one; bench/README.md).
--
-- IF NOT EXISTS: on a large debtors table an operator builds the index with CREATE UNIQUE INDEX
-- CONCURRENTLY under this name before deploying (as docs/adr/0023 describes for read indexes).
CREATE UNIQUE INDEX IF NOT EXISTS debtors_id_portfolio_id_key ON debtors (id, portfolio_id);

-- NOT VALID: new rows are checked at once; existing rows are checked by the next migration, in its
-- own transaction, which lets writes continue (online-compatible, docs/adr/0007).
ALTER TABLE debts ADD CONSTRAINT debts_debtor_portfolio_fkey FOREIGN KEY (debtor_id, portfolio_id)
  REFERENCES debtors (id, portfolio_id) ON DELETE NO ACTION ON UPDATE NO ACTION NOT VALID;
ALTER TABLE debts DROP CONSTRAINT debts_debtor_id_fkey, DROP CONSTRAINT debts_portfolio_id_fkey;
