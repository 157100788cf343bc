-- The rejected-rows file, stored once (docs/adr/0049). Keep in step with prisma/schema.prisma.

-- The storage key of the import's rejected-rows file, written by the importer when the import completed
-- (its rows stay in import_rejected_rows): GET /v1/imports/{id}/rejected-rows streams it from storage.
ALTER TABLE imports ADD COLUMN rejected_rows_file text;
