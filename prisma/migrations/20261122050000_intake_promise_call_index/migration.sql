-- Campaign metrics join promises to the campaign's calls by call_id (docs/adr/0013).
CREATE INDEX promises_call_id_idx ON promises (call_id);
