-- Imports a client can check before they happen (docs/adr/0049). Keep in step with prisma/schema.prisma.

-- A dry run reads, checks and matches the whole file, then rolls its writes back: only its counters stay.
-- The counters of the effect, for real runs too: rows matched whose debtor and debt already held every
-- value (a part of `updated`), debts reconcile marked paid, debtors replace removed.
ALTER TABLE imports
  ADD COLUMN dry_run     boolean NOT NULL DEFAULT false,
  ADD COLUMN unchanged   integer NOT NULL DEFAULT 0,
  ADD COLUMN marked_paid integer NOT NULL DEFAULT 0,
  ADD COLUMN deleted     integer NOT NULL DEFAULT 0,
  -- The file's header as enqueue read it: the first line of the rejected-rows file.
  ADD COLUMN header      text[];

-- Each staged record as it was in the file (its cells as parsed, untrimmed), and, for a
-- record the reading refused, its columns at fault and messages as the rejected-rows file shows them.
ALTER TABLE import_rows
  ADD COLUMN source        text[],
  ADD COLUMN error_column  text,
  ADD COLUMN error_message text;

-- Every refused row of an import, as it was in the file, with why: GET /v1/imports/{id}/rejected-rows.
-- Written with the chunk that refused it (a chunk merged again rewrites its range), kept with the import.
CREATE TABLE import_rejected_rows (
  import_id     text NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
  row_number    integer NOT NULL,
  source        text[] NOT NULL,
  -- The header names of the columns at fault, joined by "; " (empty: the record as a whole).
  error_column  text NOT NULL,
  -- Every message of the row, joined by "; ".
  error_message text NOT NULL,
  PRIMARY KEY (import_id, row_number)
);
