-- Needed-by dates kept (docs/configuration.md "Dates and lead times"): whether an order is at risk of arriving
-- after its needed-by date, when it was delivered and how late, and each change of that told once.
-- at_risk_since: set while the expected delivery is after the needed-by date (from the start when it was placed
-- knowing so); null when on time or without dates.
-- delivered_on / late_days: the delivery's calendar date and, when after the needed-by date, by how many days.
-- order_date_notices: one row per change (at risk, back on track, delivered late), written in the transaction
-- that applies the supplier event, numbered per order so a retried or redelivered event cannot add a second;
-- posted to the thread (and DMed) by the post-update job, like the events, each once.
-- Never edit this file once landed: add 018_….sql instead.

ALTER TABLE orders ADD COLUMN at_risk_since timestamptz;
ALTER TABLE orders ADD COLUMN delivered_on date;
ALTER TABLE orders ADD COLUMN late_days integer;

CREATE TABLE order_date_notices (
  order_id text NOT NULL REFERENCES orders (id),
  seq integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('at_risk', 'back_on_track', 'delivered_late')),
  expected_delivery date,
  needed_by date,
  late_days integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  post_attempted_at timestamptz,
  posted_at timestamptz,
  reply_ts text,
  dm_sent_at timestamptz,
  PRIMARY KEY (order_id, seq)
);

CREATE INDEX order_date_notices_unposted_idx ON order_date_notices (order_id, seq) WHERE posted_at IS NULL;

ALTER TABLE attention_items DROP CONSTRAINT IF EXISTS attention_items_kind_check;
ALTER TABLE attention_items ADD CONSTRAINT attention_items_kind_check
  CHECK (kind IN ('failed_order', 'unposted_updates', 'orphan_events', 'orphan_summary', 'unreadable_events',
    'at_risk_order'));
