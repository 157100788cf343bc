-- Fair shares of the importer fleet (issue 34, docs/adr/0043): an import job's priority is its place
-- among its organization's unfinished imports, counted at enqueue and whenever it yields. This index
-- keeps that count to the unfinished ones, however many imports an organization ran before.
-- Keep in step with prisma/schema.prisma. IF NOT EXISTS: an operator may build it CONCURRENTLY first.
CREATE INDEX IF NOT EXISTS imports_unfinished_idx ON imports (portfolio_id, id) WHERE status IN ('queued', 'processing');
