-- A month's partitions, created without holding writers up (docs/adr/0051). Attaching a partition
-- gives it the parent's keys, which takes SHARE ROW EXCLUSIVE on every table they reference and on
-- the tables whose keys reference the parent (for calls: debtors, campaigns, portfolios, promises;
-- for promises: calls, debts, debtors, payments, portfolios). The first version took them one by one,
-- waiting up to 2 s for each: writers of those tables queued behind it for as long, and a writer
-- holding one while waiting for another could deadlock with it. Now they are taken at once, only
-- when a month is missing, in tries of at most 200 ms that give back what they took; after 10 tries
-- it gives up with lock_not_available and the next run (5 minutes later) tries again, three months
-- ahead of need. Same signature, same answer: how many partitions it created.
CREATE OR REPLACE FUNCTION dc_create_partitions(table_name text, at timestamptz, months_ahead int) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '200ms' AS $$
DECLARE
  t partitioned_tables;
  missing timestamptz[] := '{}';
  month timestamptz;
  name text;
  related text;
  tries int := 0;
BEGIN
  SELECT * INTO t FROM partitioned_tables p WHERE p.table_name = dc_create_partitions.table_name;
  IF NOT FOUND THEN
    RAISE EXCEPTION '% is not partitioned', dc_create_partitions.table_name;
  END IF;
  FOR i IN 0..months_ahead LOOP
    month := (dc_month_start(at) AT TIME ZONE 'UTC' + make_interval(months => i)) AT TIME ZONE 'UTC';
    CONTINUE WHEN month < t.partitions_from;
    CONTINUE WHEN to_regclass(t.table_name || '_p' || to_char(month AT TIME ZONE 'UTC', 'YYYYMM')) IS NOT NULL;
    missing := missing || month;
  END LOOP;
  IF cardinality(missing) = 0 THEN
    RETURN 0;
  END IF;
  SELECT string_agg(DISTINCT format('%I', r.relname), ', ') INTO related
  FROM pg_constraint c JOIN pg_class r ON r.oid IN (c.conrelid, c.confrelid)
  WHERE c.contype = 'f' AND c.conparentid = 0 AND r.oid <> t.table_name::regclass
    AND (c.conrelid = t.table_name::regclass OR c.confrelid = t.table_name::regclass);
  LOOP
    BEGIN
      EXECUTE format('LOCK TABLE %I IN SHARE UPDATE EXCLUSIVE MODE', t.table_name);
      IF related IS NOT NULL THEN
        EXECUTE 'LOCK TABLE ' || related || ' IN SHARE ROW EXCLUSIVE MODE';
      END IF;
      EXIT;
    EXCEPTION WHEN lock_not_available THEN
      tries := tries + 1;
      IF tries >= 10 THEN
        RAISE;
      END IF;
      PERFORM pg_sleep(0.05 + random() * 0.2);
    END;
  END LOOP;
  FOREACH month IN ARRAY missing LOOP
    name := t.table_name || '_p' || to_char(month AT TIME ZONE 'UTC', 'YYYYMM');
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', name, t.table_name);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', t.table_name, name,
      dc_partition_bound(t.id_prefix, month), dc_partition_bound(t.id_prefix, (month AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC'));
  END LOOP;
  RETURN cardinality(missing);
END $$;
