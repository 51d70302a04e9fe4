-- The approval's posts recorded as attempted before Slack is called (src/orders/approvals/): an approver's DM, the
-- reminder in its thread, and the decision told in the order's thread. A post whose answer was lost (a timeout, a
-- kill) left the attempt without its record, so the next attempt looks for the message by its metadata (the order
-- and its approval round) before posting it again. Null or no row: never attempted, post straight away. A new
-- approval round (Fix and resubmit) clears them with the round's DMs.
-- Never edit this file once landed: add the next number instead.

CREATE TABLE approval_dm_attempts (
  order_id text NOT NULL REFERENCES orders (id),
  approver text NOT NULL,
  attempted_at timestamptz NOT NULL,
  PRIMARY KEY (order_id, approver)
);

ALTER TABLE approval_messages ADD COLUMN remind_attempted_at timestamptz;
ALTER TABLE orders ADD COLUMN approval_announce_attempted_at timestamptz;
