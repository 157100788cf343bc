-- Outbox events, webhook deliveries and attempts become partitioned by month on their ids
-- (docs/adr/0051). Each swap is catalogue work only, under a lock held for milliseconds: the table is
-- renamed `<table>_p_legacy`, a partitioned table takes its name, columns, defaults, checks, primary
-- key, indexes and foreign keys, and the old table is attached as the partition of every id before
-- `partitions_from` — its validated range check spares the scan, its indexes and foreign keys are the
-- parent's own (attached, not rebuilt) — then the months from `partitions_from` get partitions. A
-- table still empty (a new installation) keeps no future months in its first partition: its
-- partitions start with the current month.

-- The swap of one table. `drop_indexes`: unique indexes without the partition key, which a
-- partitioned table cannot hold; `drop_fks`: foreign keys given up (retention drops whole months of
-- rows the key would tie together; the code that writes them keeps them consistent).
CREATE FUNCTION dc_partition_table(name text, drop_indexes text[], drop_fks text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t partitioned_tables;
  legacy text := name || '_p_legacy';
  item record;
  statement text;
  index_defs text[] := '{}';
  fk_defs text[] := '{}';
  empty boolean;
BEGIN
  EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', name);
  EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM %I)', name) INTO empty;
  IF empty THEN
    UPDATE partitioned_tables p SET partitions_from = dc_month_start(now()) WHERE p.table_name = name;
  END IF;
  SELECT * INTO STRICT t FROM partitioned_tables p WHERE p.table_name = name;
  FOREACH statement IN ARRAY drop_indexes LOOP
    EXECUTE format('DROP INDEX %I', statement);
  END LOOP;
  FOREACH statement IN ARRAY drop_fks LOOP
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', name, statement);
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
  PERFORM dc_create_partitions(name, now(), 3);
END $$;

-- Uniqueness by id instead: a delivery's id is derived from its webhook and event, an attempt's from
-- its delivery and number (docs/adr/0051), and both start with their event's time, so a month's
-- events, deliveries and attempts share a month.
SELECT dc_partition_table('webhook_delivery_attempts', '{webhook_delivery_attempts_delivery_id_number_key}', '{webhook_delivery_attempts_delivery_id_fkey}');
SELECT dc_partition_table('webhook_deliveries', '{webhook_deliveries_webhook_id_event_id_key}', '{webhook_deliveries_event_id_fkey}');
SELECT dc_partition_table('outbox_events', '{}', '{}');

DROP FUNCTION dc_partition_table(text, text[], text[]);
