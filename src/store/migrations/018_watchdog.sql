-- The watchdog of stalled orders (src/orders/watchdog/, docs/operations.md). `watchdog_orders`: when the supplier
-- accepted each order, by the app's clock (the watchdog's first deadline counts from it). `watchdog_reports`: each
-- condition reported for an order, once ever (the primary key), recorded in the transaction that enqueues its
-- report; then its thread reply and its attention item, and when the supplier's event cleared it.
-- `stalled_order` is a new kind of attention item (its subject: `<order id>:<condition>`).
-- Never edit this file once landed: add 019_….sql instead.

CREATE TABLE watchdog_orders (
  order_id text PRIMARY KEY REFERENCES orders (id),
  placed_at timestamptz NOT NULL
);

CREATE TABLE watchdog_reports (
  order_id text NOT NULL REFERENCES orders (id),
  condition text NOT NULL CHECK (condition IN ('not_accepted', 'not_shipped', 'not_delivered')),
  -- when it became overdue, and what was expected (a time or a date), as the reply says them
  overdue_since timestamptz NOT NULL,
  expected text NOT NULL,
  reported_at timestamptz NOT NULL,
  -- the thread reply: set before it is posted (a rerun looks for it in the thread first), then its ts
  reply_attempted_at timestamptz,
  reply_ts text,
  attention_item_id text REFERENCES attention_items (id),
  cleared_at timestamptz,
  PRIMARY KEY (order_id, condition)
);

ALTER TABLE attention_items DROP CONSTRAINT IF EXISTS attention_items_kind_check;
ALTER TABLE attention_items ADD CONSTRAINT attention_items_kind_check
  CHECK (kind IN ('failed_order', 'unposted_updates', 'orphan_events', 'orphan_summary', 'unreadable_events',
    'at_risk_order', 'stalled_order'));
