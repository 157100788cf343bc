-- Calls and promises become partitioned by month on their ids, as the outbox and webhook tables did
-- (docs/adr/0051). Clients read them: they keep every row, no partition is ever dropped. As in
-- 20261201000000: the range each table's existing rows keep as their first partition, behind a NOT
-- VALID check (instant) that the next migration validates without blocking writes.

INSERT INTO partitioned_tables (table_name, id_prefix, dropped_after_retention, partitions_from)
SELECT t.name, t.prefix, false, (dc_month_start(now() + interval '7 days') AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC'
FROM (VALUES ('calls', 'call'), ('promises', 'prm')) AS t(name, prefix);

-- Locks `exclusive` (ACCESS EXCLUSIVE) and `shared` (SHARE ROW EXCLUSIVE) at once or not at all: each
-- try waits at most 200 ms and gives back what it took. Writers take calls, promises and payments in
-- both orders (a promise's insert checks its call; a call recorded with its promise writes the call
-- first), so any fixed order of ALTERs deadlocked with one of them (the migration test: every run of
-- three); this way the migration never holds one table while waiting for a writer that waits for it,
-- and no writer waits for it longer than a try. Gives up after 5 minutes.
CREATE FUNCTION dc_lock_tables(exclusive text[], shared text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  timeout text := current_setting('lock_timeout');
  deadline timestamptz := clock_timestamp() + interval '5 minutes';
BEGIN
  LOOP
    BEGIN
      PERFORM set_config('lock_timeout', '200ms', true);
      EXECUTE 'LOCK TABLE ' || (SELECT string_agg(format('%I', t), ', ') FROM unnest(exclusive) AS t) || ' IN ACCESS EXCLUSIVE MODE';
      IF cardinality(shared) > 0 THEN
        EXECUTE 'LOCK TABLE ' || (SELECT string_agg(format('%I', t), ', ') FROM unnest(shared) AS t) || ' IN SHARE ROW EXCLUSIVE MODE';
      END IF;
      EXIT;
    EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
      IF clock_timestamp() > deadline THEN
        RAISE;
      END IF;
      PERFORM pg_sleep(0.05 + random() * 0.2);
    END;
  END LOOP;
  PERFORM set_config('lock_timeout', timeout, true);
END $$;

DO $$
DECLARE t record;
BEGIN
  PERFORM dc_lock_tables('{promises, calls}', '{}');
  FOR t IN SELECT * FROM partitioned_tables WHERE table_name IN ('promises', 'calls') LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (id < %L) NOT VALID',
      t.table_name, t.table_name || '_before_partitions', dc_partition_bound(t.id_prefix, t.partitions_from));
  END LOOP;
END $$;

-- The swap of one table, as 20261201000200's (the table renamed `<table>_p_legacy` and attached, behind
-- its validated check, as the partition of every id before `partitions_from`; its indexes and foreign
-- keys the parent's own; the months from `partitions_from` created), and two things more:
-- - The foreign keys of other tables that reference it are re-pointed at the partitioned table, NOT
--   VALID (instant; a later migration validates them without blocking writes). Postgres 15 cannot
--   add a NOT VALID key *to* a partitioned table, so a table is swapped only once the keys it holds
--   are valid: calls, then the promises' key to calls validated, then promises.
-- - Every table it changes is locked at once (dc_lock_tables): itself and the tables referencing it
--   (ACCESS EXCLUSIVE), the tables it references (SHARE ROW EXCLUSIVE, for the parent's keys).
CREATE FUNCTION dc_partition_table(name text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t partitioned_tables;
  legacy text := name || '_p_legacy';
  item record;
  statement text;
  index_defs text[] := '{}';
  fk_defs text[] := '{}';
  referencing_defs text[] := '{}';
  referencing text[];
  referenced text[];
  empty boolean;
BEGIN
  SELECT coalesce(array_agg(DISTINCT conrelid::regclass::text), '{}') INTO referencing
  FROM pg_constraint WHERE confrelid = name::regclass AND contype = 'f' AND conrelid <> name::regclass;
  SELECT coalesce(array_agg(DISTINCT confrelid::regclass::text), '{}') INTO referenced
  FROM pg_constraint WHERE conrelid = name::regclass AND contype = 'f' AND confrelid <> name::regclass
    AND NOT confrelid::regclass::text = ANY(referencing);
  PERFORM dc_lock_tables(array_prepend(name, referencing), referenced);

  EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM %I)', name) INTO empty;
  IF empty THEN
    UPDATE partitioned_tables p SET partitions_from = dc_month_start(now()) WHERE p.table_name = name;
  END IF;
  SELECT * INTO STRICT t FROM partitioned_tables p WHERE p.table_name = name;
  FOR item IN SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
              WHERE confrelid = name::regclass AND contype = 'f' AND conparentid = 0 AND conrelid <> name::regclass LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', item.table_name, item.conname);
    referencing_defs := referencing_defs || format('ALTER TABLE %s ADD CONSTRAINT %I %s NOT VALID', item.table_name, item.conname, item.def);
  END LOOP;
  -- The parent gets every index under its current name; the old table's are renamed, then attached to them.
  FOR item IN SELECT i.indexrelid::regclass::text AS index_name, pg_get_indexdef(i.indexrelid) AS def
              FROM pg_index i WHERE i.indrelid = name::regclass AND NOT i.indisprimary LOOP
    index_defs := index_defs || item.def;
    EXECUTE format('ALTER INDEX %I RENAME TO %I', item.index_name, left(item.index_name, 56) || '_legacy');
  END LOOP;
  FOR item IN SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
              WHERE conrelid = name::regclass AND contype = 'f' AND conparentid = 0 LOOP
    fk_defs := fk_defs || format('ALTER TABLE %I ADD CONSTRAINT %I %s', name, item.conname, item.def);
  END LOOP;
  EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', name, name || '_pkey', legacy || '_pkey');
  EXECUTE format('ALTER TABLE %I RENAME TO %I', name, legacy);
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE) PARTITION BY RANGE (id)', name, legacy);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', name, name || '_before_partitions');
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (id)', name, name || '_pkey');
  FOREACH statement IN ARRAY index_defs LOOP
    EXECUTE statement;
  END LOOP;
  FOREACH statement IN ARRAY fk_defs LOOP
    EXECUTE statement;
  END LOOP;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', name, legacy, dc_partition_bound(t.id_prefix, t.partitions_from));
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', legacy, name || '_before_partitions');
  FOREACH statement IN ARRAY referencing_defs LOOP
    EXECUTE statement;
  END LOOP;
  PERFORM dc_create_partitions(name, now(), 3);
END $$;
