-- Initial domain model. Keep in step with prisma/schema.prisma.

CREATE TABLE organizations (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  sandbox     boolean NOT NULL DEFAULT false,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  updated_at  timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE portfolios (
  id                               text PRIMARY KEY,
  organization_id                  text NOT NULL REFERENCES organizations(id),
  status                           text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  demo                             boolean NOT NULL DEFAULT false,
  identity_name                    text NOT NULL,
  identity_description             text,
  identity_debt_type               text,
  identity_currency                text[] NOT NULL CHECK (cardinality(identity_currency) >= 1),
  identity_region                  text,
  identity_timezone                text NOT NULL DEFAULT 'UTC',
  operating_info_max_channels      integer NOT NULL DEFAULT 1,
  operating_info_last_activity     timestamptz(3),
  compliance_pii_redaction_enabled boolean NOT NULL DEFAULT false,
  created_at                       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                       timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX portfolios_organization_id_id_idx ON portfolios (organization_id, id);

CREATE TABLE api_keys (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  name            text NOT NULL,
  key_prefix      text NOT NULL,
  key_hash        text NOT NULL,
  stage           text NOT NULL CHECK (stage IN ('live', 'test')),
  scopes          text[] NOT NULL,
  portfolio_ids   text[] NOT NULL DEFAULT '{}',
  expires_at      timestamptz(3),
  revoked_at      timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash);
CREATE INDEX api_keys_organization_id_idx ON api_keys (organization_id);

CREATE TABLE debtors (
  id                               text PRIMARY KEY,
  portfolio_id                     text NOT NULL REFERENCES portfolios(id),
  external_id                      text,
  status                           text NOT NULL DEFAULT 'active',
  priority                         integer NOT NULL DEFAULT 0,
  identity_first_name              text,
  identity_last_name               text,
  identity_document_type           text,
  identity_document_number         text,
  identity_entity_type             text,
  contact_info_contact_name        text,
  contact_info_address_street      text,
  contact_info_address_city        text,
  contact_info_address_state       text,
  contact_info_address_postal_code text,
  contact_info_address_country     text,
  compliance_opt_out               boolean NOT NULL DEFAULT false,
  compliance_consent_to_call       boolean NOT NULL DEFAULT true,
  compliance_consent_to_whatsapp   boolean NOT NULL DEFAULT false,
  compliance_consent_to_email      boolean NOT NULL DEFAULT true,
  compliance_consent_to_sms        boolean NOT NULL DEFAULT true,
  deleted_at                       timestamptz(3),
  erased_at                        timestamptz(3),
  created_at                       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                       timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX debtors_portfolio_id_id_idx ON debtors (portfolio_id, id);
-- One live debtor per externalId and portfolio; deleted debtors keep theirs and are never revived.
CREATE UNIQUE INDEX debtors_live_external_id_key ON debtors (portfolio_id, external_id) WHERE deleted_at IS NULL;
-- Import "update" mode matches debtors by document.
CREATE INDEX debtors_live_document_idx ON debtors (portfolio_id, identity_document_type, identity_document_number) WHERE deleted_at IS NULL;

CREATE TABLE debtor_erasures (
  portfolio_id     text NOT NULL REFERENCES portfolios(id),
  external_id_hash text NOT NULL,
  erased_at        timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (portfolio_id, external_id_hash)
);

CREATE TABLE debtor_phones (
  id                  text PRIMARY KEY,
  debtor_id           text NOT NULL REFERENCES debtors(id),
  phone               text NOT NULL,
  phone_e164          text NOT NULL,
  position            integer NOT NULL,
  "primary"           boolean NOT NULL DEFAULT false,
  type                text,
  owner               text NOT NULL DEFAULT 'unknown' CHECK (owner IN ('holder', 'third_party', 'reference', 'guarantor', 'unknown')),
  owner_source        text NOT NULL DEFAULT 'default',
  origin              text NOT NULL DEFAULT 'api',
  verification_status text NOT NULL DEFAULT 'unverified',
  verified            boolean NOT NULL DEFAULT false,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX debtor_phones_debtor_id_phone_e164_key ON debtor_phones (debtor_id, phone_e164);

CREATE TABLE debtor_emails (
  id                  text PRIMARY KEY,
  debtor_id           text NOT NULL REFERENCES debtors(id),
  address             text NOT NULL,
  position            integer NOT NULL,
  "primary"           boolean NOT NULL DEFAULT false,
  type                text,
  verification_status text NOT NULL DEFAULT 'unverified',
  verified            boolean NOT NULL DEFAULT false,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX debtor_emails_debtor_id_idx ON debtor_emails (debtor_id);

CREATE TABLE debtor_notes (
  id         text PRIMARY KEY,
  debtor_id  text NOT NULL REFERENCES debtors(id),
  kind       text NOT NULL,
  body       text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX debtor_notes_debtor_id_idx ON debtor_notes (debtor_id);

CREATE TABLE debtor_timeline_events (
  id         text PRIMARY KEY,
  debtor_id  text NOT NULL REFERENCES debtors(id),
  kind       text NOT NULL,
  data       jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX debtor_timeline_events_debtor_id_id_idx ON debtor_timeline_events (debtor_id, id);

CREATE TABLE debtor_pending_messages (
  id            text PRIMARY KEY,
  debtor_id     text NOT NULL REFERENCES debtors(id),
  channel       text NOT NULL CHECK (channel IN ('sms', 'email', 'whatsapp')),
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'cancelled')),
  scheduled_at  timestamptz(3) NOT NULL,
  cancelled_at  timestamptz(3),
  cancel_reason text,
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX debtor_pending_messages_debtor_id_status_idx ON debtor_pending_messages (debtor_id, status);

CREATE TABLE debts (
  id           text PRIMARY KEY,
  portfolio_id text NOT NULL REFERENCES portfolios(id),
  debtor_id    text NOT NULL REFERENCES debtors(id),
  external_id  text NOT NULL,
  total_amount numeric(19, 4) NOT NULL CHECK (total_amount > 0),
  paid_amount  numeric(19, 4) NOT NULL DEFAULT 0 CHECK (paid_amount >= 0),
  currency     text NOT NULL,
  status       text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paid', 'cancelled')),
  due_date     text,
  issue_date   text,
  description  text,
  debt_type    text,
  deleted_at   timestamptz(3),
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX debts_portfolio_id_id_idx ON debts (portfolio_id, id);
CREATE INDEX debts_debtor_id_idx ON debts (debtor_id);
CREATE UNIQUE INDEX debts_live_external_id_key ON debts (portfolio_id, external_id) WHERE deleted_at IS NULL;

CREATE TABLE calls (
  id                     text PRIMARY KEY,
  portfolio_id           text NOT NULL REFERENCES portfolios(id),
  debtor_id              text NOT NULL REFERENCES debtors(id),
  campaign_id            text,
  direction              text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  status                 text NOT NULL,
  from_number            text,
  to_number              text,
  connected_at           timestamptz(3),
  effective_duration_sec numeric(12, 3),
  metrics_start_time     timestamptz(3),
  metrics_end_time       timestamptz(3),
  analysis               jsonb,
  created_at             timestamptz(3) NOT NULL DEFAULT now(),
  updated_at             timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX calls_portfolio_id_id_idx ON calls (portfolio_id, id);
CREATE INDEX calls_debtor_id_id_idx ON calls (debtor_id, id);

CREATE TABLE payments (
  id             text PRIMARY KEY,
  external_id    text,
  portfolio_id   text NOT NULL REFERENCES portfolios(id),
  debtor_id      text NOT NULL REFERENCES debtors(id),
  debt_id        text REFERENCES debts(id),
  promise_id     text,
  amount         numeric(19, 4) NOT NULL CHECK (amount > 0),
  currency       text NOT NULL,
  payment_date   text NOT NULL,
  payment_method text NOT NULL DEFAULT 'transfer',
  reference      text,
  source         text NOT NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at     timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX payments_portfolio_id_id_idx ON payments (portfolio_id, id);
CREATE INDEX payments_debtor_id_id_idx ON payments (debtor_id, id);
-- POST /v1/payments idempotency: one payment per client externalId and portfolio.
CREATE UNIQUE INDEX payments_external_id_key ON payments (portfolio_id, external_id) WHERE external_id IS NOT NULL;

CREATE TABLE promises (
  id               text PRIMARY KEY,
  portfolio_id     text NOT NULL REFERENCES portfolios(id),
  debtor_id        text NOT NULL REFERENCES debtors(id),
  debt_id          text REFERENCES debts(id),
  call_id          text REFERENCES calls(id),
  amount           numeric(19, 4) NOT NULL CHECK (amount > 0),
  currency         text NOT NULL,
  promise_date     text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'fulfilled', 'partial', 'broken', 'cancelled')),
  payment_id       text REFERENCES payments(id),
  fulfillment_date text,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at       timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX promises_portfolio_id_id_idx ON promises (portfolio_id, id);
CREATE INDEX promises_debtor_id_id_idx ON promises (debtor_id, id);

CREATE TABLE campaigns (
  id           text PRIMARY KEY,
  portfolio_id text NOT NULL REFERENCES portfolios(id),
  name         text NOT NULL,
  description  text,
  channel      text NOT NULL DEFAULT 'voice',
  status       text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'scheduled', 'active', 'paused', 'completed', 'archived')),
  starts_at    timestamptz(3),
  ends_at      timestamptz(3),
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX campaigns_portfolio_id_id_idx ON campaigns (portfolio_id, id);
CREATE INDEX calls_campaign_id_idx ON calls (campaign_id) WHERE campaign_id IS NOT NULL;

CREATE TABLE uploads (
  id           text PRIMARY KEY,
  portfolio_id text NOT NULL REFERENCES portfolios(id),
  api_key_id   text NOT NULL REFERENCES api_keys(id),
  storage_key  text NOT NULL,
  expires_at   timestamptz(3) NOT NULL,
  created_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX uploads_storage_key_key ON uploads (storage_key);

CREATE TABLE imports (
  id                  text PRIMARY KEY,
  portfolio_id        text NOT NULL REFERENCES portfolios(id),
  upload_id           text NOT NULL REFERENCES uploads(id),
  storage_key         text NOT NULL,
  column_mapping      jsonb NOT NULL,
  conflict_resolution text NOT NULL DEFAULT 'add' CHECK (conflict_resolution IN ('add', 'update', 'reconcile', 'replace')),
  status              text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
  created             integer NOT NULL DEFAULT 0,
  updated             integer NOT NULL DEFAULT 0,
  errors              integer NOT NULL DEFAULT 0,
  processed_rows      integer NOT NULL DEFAULT 0,
  total_rows          integer NOT NULL DEFAULT 0,
  error_details       text[] NOT NULL DEFAULT '{}',
  checkpoint_row      integer NOT NULL DEFAULT 0,
  started_at          timestamptz(3),
  finished_at         timestamptz(3),
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX imports_portfolio_id_id_idx ON imports (portfolio_id, id);

CREATE TABLE webhooks (
  id                text PRIMARY KEY,
  organization_id   text NOT NULL REFERENCES organizations(id),
  url               text NOT NULL,
  portfolio_ids     text[] NOT NULL DEFAULT '{}',
  enabled           boolean NOT NULL DEFAULT true,
  secret_ciphertext text NOT NULL,
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  updated_at        timestamptz(3) NOT NULL DEFAULT now(),
  deleted_at        timestamptz(3)
);
CREATE INDEX webhooks_organization_id_idx ON webhooks (organization_id);

CREATE TABLE outbox_events (
  id              text PRIMARY KEY,
  organization_id text NOT NULL,
  portfolio_id    text NOT NULL,
  type            text NOT NULL,
  livemode        boolean NOT NULL,
  payload         jsonb NOT NULL,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  relayed_at      timestamptz(3)
);
-- The relay scans only unrelayed rows, oldest first.
CREATE INDEX outbox_events_unrelayed_idx ON outbox_events (id) WHERE relayed_at IS NULL;

CREATE TABLE webhook_deliveries (
  id              text PRIMARY KEY,
  webhook_id      text NOT NULL REFERENCES webhooks(id),
  event_id        text NOT NULL REFERENCES outbox_events(id),
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count   integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX webhook_deliveries_webhook_id_event_id_key ON webhook_deliveries (webhook_id, event_id);
CREATE INDEX webhook_deliveries_webhook_id_id_idx ON webhook_deliveries (webhook_id, id);

CREATE TABLE webhook_delivery_attempts (
  id          text PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
  number      integer NOT NULL,
  status_code integer,
  error       text,
  duration_ms integer NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX webhook_delivery_attempts_delivery_id_number_key ON webhook_delivery_attempts (delivery_id, number);
