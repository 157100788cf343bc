-- The apps connect as a role without DDL rights that owns no table (docs/adr/0027), and only a
-- table's owner may ANALYZE it (others get a warning, and the statistics stay stale). The importer
-- refreshes the planner's statistics of the tables it writes (docs/adr/0022, 0023) through this
-- function instead: it runs with its owner's rights (the migration role), does exactly this ANALYZE
-- and nothing else, takes no table name from its caller, and pins search_path so that no object a
-- caller creates can stand in for the ones named here.
CREATE FUNCTION refresh_import_statistics(include_staging boolean)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  ANALYZE public.debtors, public.debts, public.debtor_phones, public.debtor_emails;
  IF include_staging THEN
    ANALYZE public.import_rows;
  END IF;
END
$$;

-- Callers are granted EXECUTE explicitly (scripts/migrate.js grants the apps' role).
REVOKE ALL ON FUNCTION refresh_import_statistics(boolean) FROM PUBLIC;
