-- Approvals (src/orders/approvals/): what an order that needs approval asked for (the matched rule, who may approve,
-- when to remind and expire), the decision (who, when, why), and each approver's DM, so that every DM can be
-- updated with the decision and each approver is reminded once.
-- Never edit this file once landed: add 008_….sql instead.

ALTER TABLE orders ADD COLUMN approval jsonb;
ALTER TABLE orders ADD COLUMN approval_decided_by text;
ALTER TABLE orders ADD COLUMN approval_decided_at timestamptz;
ALTER TABLE orders ADD COLUMN approval_reason text;
-- Set once the decision (or the expiry) was told in the order's thread.
ALTER TABLE orders ADD COLUMN approval_announced_at timestamptz;

CREATE TABLE approval_messages (
  order_id text NOT NULL REFERENCES orders (id),
  approver text NOT NULL,
  channel_id text NOT NULL,
  message_ts text NOT NULL,
  reminded_at timestamptz,
  -- Set once the DM shows the decision (its buttons gone).
  decided_shown_at timestamptz,
  PRIMARY KEY (order_id, approver)
);

-- App Home's "Waiting for your approval" lists a profile's waiting orders without a scan.
CREATE INDEX orders_awaiting_approval_idx ON orders (profile, created_at) WHERE status = 'awaiting_approval';
