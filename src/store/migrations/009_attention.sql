-- What needs an operator: a placement that failed for good, an order's updates that could not be posted, supplier
-- events for no known order. One row per thing; its admin alert is recorded on it, and so is who resolved it,
-- how and when. At most one open row per kind and subject: a second report of the same trouble finds it.
-- Never edit this file once landed: add 010_….sql instead.

CREATE TABLE attention_items (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('failed_order', 'unposted_updates', 'orphan_events')),
  -- the order id (failed_order, unposted_updates) or the supplier's correlation id (orphan_events)
  subject text NOT NULL,
  -- the admin alert (title and text parts), to show it again with its outcome
  alert jsonb NOT NULL,
  opened_at timestamptz NOT NULL DEFAULT now(),
  alert_channel_id text,
  alert_ts text,
  -- when a replica last took on posting an alert that has not gone out (so two replicas do not both post it)
  alert_claimed_at timestamptz,
  resolution text CHECK (resolution IN ('retried', 'handled', 'reposted', 'attached', 'ignored', 'obsolete')),
  resolved_by text,
  resolved_at timestamptz,
  resolution_detail jsonb
);

CREATE UNIQUE INDEX attention_items_open_idx ON attention_items (kind, subject) WHERE resolved_at IS NULL;
CREATE INDEX attention_items_open_newest_idx ON attention_items (opened_at DESC) WHERE resolved_at IS NULL;
CREATE INDEX attention_items_unsent_idx ON attention_items (opened_at) WHERE alert_ts IS NULL AND resolved_at IS NULL;
