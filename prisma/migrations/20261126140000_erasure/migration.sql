-- Erasure that erases (issue 14, docs/adr/0025). Keep in step with prisma/schema.prisma.

-- Tombstones say how their hash was computed. Rows before this migration are unsalted SHA-256 of the
-- externalId as sent ('sha256'); they cannot be recomputed, so they stay and still refuse (the
-- checkers look up both kinds). Every new tombstone is 'hmac-sha256': HMAC-SHA256 keyed by
-- ERASURE_HMAC_KEY over the NFC form of the externalId. No default: a writer names its scheme.
ALTER TABLE debtor_erasures ADD COLUMN scheme text NOT NULL DEFAULT 'sha256'
  CONSTRAINT debtor_erasures_scheme_check CHECK (scheme IN ('hmac-sha256', 'sha256'));
ALTER TABLE debtor_erasures ALTER COLUMN scheme DROP DEFAULT;

-- Erasure scrubs the debtor's personal data from the payloads of its events (relayed or not) in
-- one statement: this finds them without reading the whole outbox. `payload` is json (the exact
-- text written), so the key is the expression itself.
CREATE INDEX outbox_events_debtor_id_idx ON outbox_events ((payload ->> 'debtorId'));

-- The importer no longer stages a hash per row: the merge computes every tombstone value of the
-- external ids it would create (keyed hash and legacy ones) with the shared ErasureTombstones.
-- Stop importers before migrating (as for any change of the staging table): an older importer
-- still COPYs into this column.
ALTER TABLE import_rows DROP COLUMN erasure_hash;
