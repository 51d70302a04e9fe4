-- The supplier's deliveries as they arrived (issue: nothing authentic is ever lost). Once a delivery's signature
-- verifies, its raw body and the headers that identify it are kept: with the event it was mapped to
-- (supplier_events.raw_body, .delivery), or, when the configured mapping (customer file, `supplierEvents`) cannot
-- read it, as an unreadable delivery, with the reason, until a corrected mapping reprocesses it.
-- Never edit this file once landed: add 014_….sql instead.

ALTER TABLE supplier_events ADD COLUMN raw_body bytea;
-- the headers that identify the delivery (its id and timestamp headers, the signing scheme), never a signature
ALTER TABLE supplier_events ADD COLUMN delivery jsonb;

CREATE TABLE unreadable_events (
  -- the deduplication key: `id:` + the supplier's event id when the mapping found one, else `sha256:` + the body's hash
  id text PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now(),
  delivery jsonb NOT NULL,
  body bytea NOT NULL,
  -- why the mapping could not read it, and the `supplierEvents` key at fault (null: the body is not a JSON object)
  reason text NOT NULL,
  field text,
  -- the body's field names and types (values left out) and a short hash of them: one admin alert per shape
  shape_key text NOT NULL,
  shape jsonb NOT NULL,
  -- the last reprocessing that still could not read it
  reprocessed_at timestamptz,
  -- read after all: the supplier event it became (or was already, for a duplicate)
  event_id text,
  resolved_at timestamptz
);

CREATE INDEX unreadable_events_open_idx ON unreadable_events (received_at, id) WHERE resolved_at IS NULL;
CREATE INDEX unreadable_events_open_shape_idx ON unreadable_events (shape_key) WHERE resolved_at IS NULL;

ALTER TABLE attention_items DROP CONSTRAINT attention_items_kind_check;
ALTER TABLE attention_items ADD CONSTRAINT attention_items_kind_check
  CHECK (kind IN ('failed_order', 'unposted_updates', 'orphan_events', 'unreadable_events'));
ALTER TABLE attention_items DROP CONSTRAINT attention_items_resolution_check;
ALTER TABLE attention_items ADD CONSTRAINT attention_items_resolution_check
  CHECK (resolution IN ('retried', 'handled', 'reposted', 'attached', 'ignored', 'obsolete', 'reprocessed'));
