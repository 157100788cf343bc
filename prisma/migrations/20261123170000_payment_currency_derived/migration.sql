-- POST /v1/payments retries (docs/adr/0010): whether the client omitted currency (and it was
-- derived), so an identical retry is recognised without deriving it again from changed data.
ALTER TABLE payments ADD COLUMN currency_derived boolean NOT NULL DEFAULT false;
