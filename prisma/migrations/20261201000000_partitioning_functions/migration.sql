-- Monthly range partitions on time-ordered ids, for the append-only tables whose old rows are
-- dropped: outbox events, webhook deliveries and attempts (docs/adr/0051).
-- This migration adds what the next ones and the dispatcher's maintenance use, and the range each
-- table's existing rows will keep as their first partition: every id before the first month that
-- gets a partition of its own. The NOT VALID check is instant; the next migration validates it
-- without blocking writes, so the swap that follows attaches the table without scanning it.

-- The first 10 characters of a ULID: the instant in milliseconds, Crockford base32.
CREATE FUNCTION dc_ulid_time(at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
           ((floor(extract(epoch FROM at) * 1000)::bigint >> (5 * (9 - i))) & 31)::int + 1, 1), '' ORDER BY i)
  FROM generate_series(0, 9) AS i
$$;

-- The first month (UTC) on or after `at`, and the id every id of that month and later sorts at or after:
-- `<prefix>_` and the month's ULID time (a shorter string sorts before every longer one it starts).
CREATE FUNCTION dc_month_start(at timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
$$;

CREATE FUNCTION dc_partition_bound(prefix text, month timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT prefix || '_' || dc_ulid_time(month)
$$;

-- An id derived from what it identifies, in its month: `<prefix>_`, the time of `time_of` (an id: the
-- 10 characters after its prefix), and 16 hexadecimal digits of the SHA-256 of `parts` — 26
-- characters of the ULID alphabet, like every id. Where a unique rule cannot span partitions, the
-- id carries it: a webhook delivery's id is derived from its webhook and event (in its event's
-- month), an attempt's from its delivery and number (in its delivery's), so `ON CONFLICT (id)`
-- arbitrates as the unique indexes did. Two rows collide only with the same millisecond and 64-bit digest.
CREATE FUNCTION dc_derived_id(prefix text, time_of text, VARIADIC parts text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT prefix || '_' || substr(time_of, strpos(time_of, '_') + 1, 10)
      || upper(left(encode(sha256(convert_to(array_to_string(parts, E'\n'), 'UTF8')), 'hex'), 16))
$$;

-- The partitioned tables: their id prefix, whether whole partitions are dropped past the retention
-- (what clients cannot read: the outbox behind the events API's 30 days, deliveries and attempts;
-- a table clients read, such as calls, would keep every row), and the first month with a partition
-- of its own (before it: `<table>_p_legacy`).
CREATE TABLE partitioned_tables (
  table_name text PRIMARY KEY,
  id_prefix text NOT NULL,
  dropped_after_retention boolean NOT NULL,
  partitions_from timestamptz NOT NULL
);

-- Far enough ahead that the swap, minutes later, starts before it even at the end of a month.
INSERT INTO partitioned_tables (table_name, id_prefix, dropped_after_retention, partitions_from)
SELECT t.name, t.prefix, t.dropped, (dc_month_start(now() + interval '7 days') AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC'
FROM (VALUES ('outbox_events', 'evt', true), ('webhook_deliveries', 'dlv', true), ('webhook_delivery_attempts', 'att', true)) AS t(name, prefix, dropped);

-- Referencing tables first, as a write takes them (a delivery's insert locks the delivery, then
-- checks its event): the other order deadlocked with a writer (partition-migration.e2e-spec.ts).
DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT * FROM partitioned_tables
           ORDER BY array_position(ARRAY['webhook_delivery_attempts', 'webhook_deliveries', 'outbox_events'], table_name) LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (id < %L) NOT VALID',
      t.table_name, t.table_name || '_before_partitions', dc_partition_bound(t.id_prefix, t.partitions_from));
  END LOOP;
END $$;

-- Partitions of `table_name` for the month of `at` and the `months_ahead` after it (those missing,
-- from its first partitioned month on): a table like the parent, attached (SHARE UPDATE EXCLUSIVE on
-- the parent: reads and writes go on; the parent's indexes and foreign keys are made on the empty
-- table). Runs as the schema's owner for the apps' role, which has no DDL rights (docs/adr/0027).
-- Answers how many it created.
CREATE FUNCTION dc_create_partitions(table_name text, at timestamptz, months_ahead int) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
DECLARE
  t partitioned_tables;
  month timestamptz;
  name text;
  created int := 0;
BEGIN
  SELECT * INTO t FROM partitioned_tables p WHERE p.table_name = dc_create_partitions.table_name;
  IF NOT FOUND THEN
    RAISE EXCEPTION '% is not partitioned', dc_create_partitions.table_name;
  END IF;
  FOR i IN 0..months_ahead LOOP
    month := (dc_month_start(at) AT TIME ZONE 'UTC' + make_interval(months => i)) AT TIME ZONE 'UTC';
    CONTINUE WHEN month < t.partitions_from;
    name := t.table_name || '_p' || to_char(month AT TIME ZONE 'UTC', 'YYYYMM');
    CONTINUE WHEN to_regclass(name) IS NOT NULL;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', name, t.table_name);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', t.table_name, name,
      dc_partition_bound(t.id_prefix, month), dc_partition_bound(t.id_prefix, (month AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC'));
    created := created + 1;
  END LOOP;
  RETURN created;
END $$;

-- Drops the partitions of `table_name` whose every id is before `before` (their upper bound at or
-- below it), for the tables whose rows go past the retention only; an outbox partition that still
-- holds an event not relayed is kept (its deliveries are still to be made). A partition is dropped
-- whole: ACCESS EXCLUSIVE on the parent for an instant, given up after 2 s of waiting (the next run
-- tries again). Answers the partitions dropped.
CREATE FUNCTION dc_drop_partitions(table_name text, before timestamptz) RETURNS text[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
DECLARE
  t partitioned_tables;
  part record;
  unrelayed boolean;
  dropped text[] := '{}';
BEGIN
  SELECT * INTO t FROM partitioned_tables p WHERE p.table_name = dc_drop_partitions.table_name;
  IF NOT FOUND THEN
    RAISE EXCEPTION '% is not partitioned', dc_drop_partitions.table_name;
  END IF;
  IF NOT t.dropped_after_retention THEN
    RAISE EXCEPTION '% keeps every row: its partitions are never dropped', t.table_name;
  END IF;
  FOR part IN
    SELECT c.relname, substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''([^'']+)''\)') AS upper_bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = t.table_name::regclass
    ORDER BY 2
  LOOP
    CONTINUE WHEN part.upper_bound IS NULL OR part.upper_bound > dc_partition_bound(t.id_prefix, before);
    IF t.table_name = 'outbox_events' THEN
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE relayed_at IS NULL)', part.relname) INTO unrelayed;
      CONTINUE WHEN unrelayed;
    END IF;
    EXECUTE format('DROP TABLE %I', part.relname);
    dropped := dropped || part.relname::text;
  END LOOP;
  RETURN dropped;
END $$;
