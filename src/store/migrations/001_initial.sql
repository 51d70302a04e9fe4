-- Orders, received supplier events and document number sequences.
-- Never edit this file once landed: add 002_….sql instead (src/store/migrate.ts checks checksums).

CREATE TABLE orders (
  id text PRIMARY KEY,
  profile text NOT NULL,
  external_document_number text NOT NULL,
  correlation_id text UNIQUE,
  customer_reference text,
  requested_by text NOT NULL,
  source text NOT NULL CHECK (source IN ('command', 'shortcut', 'workflow', 'cli')),
  idempotency_key text UNIQUE,
  slack_team_id text,
  slack_channel_id text,
  slack_message_ts text,
  slack_thread_ts text,
  status text NOT NULL,
  status_at timestamptz NOT NULL DEFAULT now(),
  -- occurredAt of the supplier event that set the status; NULL while the status is one of our own
  status_occurred_at timestamptz,
  last_error jsonb,
  request jsonb NOT NULL,
  draft jsonb,
  workflow jsonb,
  tracking jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (profile, external_document_number)
);

CREATE INDEX orders_requested_by_created_at_idx ON orders (requested_by, created_at DESC);
CREATE INDEX orders_external_document_number_idx ON orders (external_document_number);

CREATE TABLE supplier_events (
  id text PRIMARY KEY,
  correlation_id text NOT NULL,
  order_id text REFERENCES orders (id),
  type text NOT NULL,
  occurred_at timestamptz NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  posted_at timestamptz,
  reply_ts text,
  post_error jsonb,
  orphan_reported_at timestamptz
);

-- Orphans (order not known yet) are looked up by correlation id when the order's placement is recorded.
CREATE INDEX supplier_events_orphan_correlation_idx ON supplier_events (correlation_id) WHERE order_id IS NULL;
CREATE INDEX supplier_events_unposted_idx ON supplier_events (order_id, occurred_at) WHERE posted_at IS NULL;
CREATE INDEX supplier_events_unreported_orphans_idx ON supplier_events (received_at)
  WHERE order_id IS NULL AND orphan_reported_at IS NULL;

CREATE TABLE document_sequences (
  prefix text PRIMARY KEY,
  value bigint NOT NULL
);
