-- The portfolio load flow (docs/imports.md, docs/adr/0021). Keep in step with prisma/schema.prisma.

-- The client's name for the uploaded file (optional, for operators).
ALTER TABLE uploads ADD COLUMN file_name text;

-- An import runs in phases: reading (the file is parsed, validated and staged in chunks; checkpoint_row
-- is the last staged record), merging (staged rows are written into debtors and debts in chunks;
-- merged_row is the last merged record), finishing (reconcile's paid debts, replace's swap, statistics).
-- A restarted import continues from its phase and checkpoint.
ALTER TABLE imports ADD COLUMN phase text NOT NULL DEFAULT 'reading'
  CHECK (phase IN ('reading', 'merging', 'finishing', 'done'));
ALTER TABLE imports ADD COLUMN merged_row integer NOT NULL DEFAULT 0;
-- Why a failed import stopped (an unreadable file, for example); null otherwise.
ALTER TABLE imports ADD COLUMN failure_reason text;
-- The CSV delimiter detected from the header line.
ALTER TABLE imports ADD COLUMN delimiter text;
