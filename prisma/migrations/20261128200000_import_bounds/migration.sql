-- Bounded imports (issue 34, docs/adr/0043). Keep in step with prisma/schema.prisma.

-- The file as enqueue checked it (size, and the storage's version of it: S3's ETag or the local
-- file's identity): the importer reads exactly those bytes, and refuses a file replaced since.
-- Null for imports enqueued before: read as stored.
ALTER TABLE imports ADD COLUMN file_size bigint;
ALTER TABLE imports ADD COLUMN file_version text;

-- Runs of the import that started and did not end it (a crash, an error); a clean stop of the
-- importer does not count. Past IMPORT_MAX_ATTEMPTS the import ends failed with last_error.
ALTER TABLE imports ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE imports ADD COLUMN last_error text;
