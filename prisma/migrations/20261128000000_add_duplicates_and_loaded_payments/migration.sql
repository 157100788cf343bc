-- Mode add always creates (docs/adr/0041): a portfolio may now hold several live debtors with one
-- external id, and several live debts with one external id. Keep in step with prisma/schema.prisma.
--
-- The live external-id indexes stop being unique; the lookups they serve (the debtor batch, the
-- importer) keep an index of the same shape. The debtor batch still never creates a second live
-- debt with an external id in use (debt_external_id_in_use): the rule binds its own writes, under
-- its advisory locks, and is checked by the application as it always was (docs/adr/0012).
--
-- IF NOT EXISTS: on a large table an operator builds each new index with CREATE INDEX CONCURRENTLY
-- under this name before deploying (docs/adr/0023); the DROP then only removes the catalogue entry.
CREATE INDEX IF NOT EXISTS debtors_live_external_id_idx ON debtors (portfolio_id, external_id) WHERE deleted_at IS NULL;
DROP INDEX IF EXISTS debtors_live_external_id_key;
CREATE INDEX IF NOT EXISTS debts_live_external_id_idx ON debts (portfolio_id, external_id) WHERE deleted_at IS NULL;
DROP INDEX IF EXISTS debts_live_external_id_key;

-- Payments loaded with a portfolio file (docs/imports.md): the file's payment id, kept internally
-- (the API's externalId stays null: it is the key of POST /v1/payments only). Unique per portfolio,
-- so a file loaded again registers each payment once.
ALTER TABLE payments ADD COLUMN import_external_id text;
CREATE UNIQUE INDEX IF NOT EXISTS payments_import_external_id_key ON payments (portfolio_id, import_external_id)
  WHERE import_external_id IS NOT NULL;

-- The import's payment counters: registered, and already registered (skipped, not an error).
ALTER TABLE imports ADD COLUMN payments_registered integer NOT NULL DEFAULT 0;
ALTER TABLE imports ADD COLUMN payments_skipped integer NOT NULL DEFAULT 0;

-- The staged payment of a row (all null for a row without one).
ALTER TABLE import_rows
  ADD COLUMN payment_external_id text,
  ADD COLUMN payment_amount numeric(19, 4),
  ADD COLUMN payment_currency text,
  ADD COLUMN payment_date text,
  ADD COLUMN payment_method text,
  ADD COLUMN payment_reference text,
  ADD COLUMN new_payment_id text;
