-- Read plans that do not depend on the planner's statistics (docs/adr/0023). Keep in step with
-- prisma/schema.prisma (the partial indexes exist only here).
--
-- Every list page is, for each reachable portfolio, one ordered index range scan
-- (reachableKeysetPageSql): `WHERE [key = v AND] (portfolio_id, id) > (p.id, cursor) AND
-- portfolio_id <= p.id AND (<liveness>) IS NOT DISTINCT FROM true ORDER BY portfolio_id, id
-- LIMIT n`. Each index below has that order — the page's key (its first filter in a fixed order:
-- id, debtor, campaign, status, direction), then portfolio_id, id — and, on debtors and debts, that
-- liveness as its predicate, in that very spelling. The spelling is the point: a page implies the
-- predicate of its own indexes and of no other partial index (debtors_live_document_idx and the
-- live external-id keys say `deleted_at IS NULL`), and the planner estimates it at one half with or
-- without statistics, where `deleted_at IS NULL` on an unanalysed table is estimated at 0.5 % of
-- the rows and every live-rows index looks empty. Other filters are checked on the rows read, in
-- the same spelling (reach.repository.ts, residual()). One index fits each page.
--
-- IF NOT EXISTS / IF EXISTS: on a large production table an operator builds the new indexes with
-- CREATE INDEX CONCURRENTLY under these names before deploying, and may drop the old ones
-- CONCURRENTLY after (ADR 0023); this migration then only finishes the job. A concurrent build that
-- failed leaves an INVALID index of the same name, which IF NOT EXISTS would keep: refused here.
DO $$
DECLARE invalid text;
BEGIN
  SELECT string_agg(c.relname, ', ') INTO invalid
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE NOT i.indisvalid AND c.relname IN (
    'debtors_live_portfolio_id_id_idx', 'debtors_live_status_portfolio_id_id_idx',
    'debts_live_portfolio_id_id_idx', 'debts_live_status_portfolio_id_id_idx', 'debts_debtor_id_portfolio_id_id_idx',
    'calls_debtor_id_portfolio_id_id_idx', 'calls_campaign_id_portfolio_id_id_idx', 'calls_status_portfolio_id_id_idx',
    'calls_direction_portfolio_id_id_idx', 'payments_debtor_id_portfolio_id_id_idx',
    'promises_debtor_id_portfolio_id_id_idx', 'promises_status_portfolio_id_id_idx', 'campaigns_status_portfolio_id_id_idx');
  IF invalid IS NOT NULL THEN
    RAISE EXCEPTION 'invalid indexes left by a failed CREATE INDEX CONCURRENTLY: %; drop them and build them again (docs/adr/0023)', invalid;
  END IF;
END $$;

-- Debtors: a page shows debtors neither deleted nor erased. Before, the full (portfolio_id, id)
-- index needed a filter, and the partial debtors_live_document_idx, estimated at one row on an
-- unanalysed table, read the whole portfolio and sorted it (issue 13). Soft-deleted rows keep their
-- ids, older than their replacements': a full index would make a page after a re-load walk them.
CREATE INDEX IF NOT EXISTS debtors_live_portfolio_id_id_idx ON debtors (portfolio_id, id)
  WHERE (deleted_at IS NULL AND erased_at IS NULL) IS NOT DISTINCT FROM true;
-- status=a,b: one scan per status.
CREATE INDEX IF NOT EXISTS debtors_live_status_portfolio_id_id_idx ON debtors (status, portfolio_id, id)
  WHERE (deleted_at IS NULL AND erased_at IS NULL) IS NOT DISTINCT FROM true;
DROP INDEX IF EXISTS debtors_portfolio_id_id_idx;
DROP INDEX IF EXISTS debtors_portfolio_id_status_id_idx;

-- Debts: live debts (the debtor's liveness is then a probe of its primary key).
CREATE INDEX IF NOT EXISTS debts_live_portfolio_id_id_idx ON debts (portfolio_id, id) WHERE (deleted_at IS NULL) IS NOT DISTINCT FROM true;
CREATE INDEX IF NOT EXISTS debts_live_status_portfolio_id_id_idx ON debts (status, portfolio_id, id) WHERE (deleted_at IS NULL) IS NOT DISTINCT FROM true;
-- debtorId, and every other read of a debtor's debts (deletion, erasure, payments' currency
-- lookup), deleted ones included: not partial.
CREATE INDEX IF NOT EXISTS debts_debtor_id_portfolio_id_id_idx ON debts (debtor_id, portfolio_id, id);
DROP INDEX IF EXISTS debts_portfolio_id_id_idx;
DROP INDEX IF EXISTS debts_portfolio_id_status_id_idx;
DROP INDEX IF EXISTS debts_debtor_id_idx;

-- Calls (no liveness; calls_portfolio_id_id_idx stays). The campaign index also serves campaign
-- metrics (campaign_id = ANY(…)).
CREATE INDEX IF NOT EXISTS calls_debtor_id_portfolio_id_id_idx ON calls (debtor_id, portfolio_id, id);
CREATE INDEX IF NOT EXISTS calls_campaign_id_portfolio_id_id_idx ON calls (campaign_id, portfolio_id, id) WHERE campaign_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS calls_status_portfolio_id_id_idx ON calls (status, portfolio_id, id);
CREATE INDEX IF NOT EXISTS calls_direction_portfolio_id_id_idx ON calls (direction, portfolio_id, id);
DROP INDEX IF EXISTS calls_debtor_id_id_idx;
DROP INDEX IF EXISTS calls_campaign_id_idx;

-- Payments (payments_portfolio_id_id_idx stays; from/to bound a client's business date: filters).
CREATE INDEX IF NOT EXISTS payments_debtor_id_portfolio_id_id_idx ON payments (debtor_id, portfolio_id, id);
DROP INDEX IF EXISTS payments_debtor_id_id_idx;

-- Promises (promises_portfolio_id_id_idx and promises_call_id_idx stay).
CREATE INDEX IF NOT EXISTS promises_debtor_id_portfolio_id_id_idx ON promises (debtor_id, portfolio_id, id);
CREATE INDEX IF NOT EXISTS promises_status_portfolio_id_id_idx ON promises (status, portfolio_id, id);
DROP INDEX IF EXISTS promises_debtor_id_id_idx;

-- Campaigns (campaigns_portfolio_id_id_idx stays).
CREATE INDEX IF NOT EXISTS campaigns_status_portfolio_id_id_idx ON campaigns (status, portfolio_id, id);
