-- An orphan-event storm is one admin alert per sweep, not one per unknown correlation id: a summary item
-- (`orphan_summary`, one open at a time) stands for the orphan items it summarizes (`summarized_in`), which get no
-- alert of their own and are not listed one by one on App Home; "Ignore all" on the summary closes them all.
-- `unreadable_events` is another kind (events whose body could not be read).
-- And approvers Slack refuses for good (`account_inactive`, `user_not_found`…): recorded once per order and
-- approver, so the request job does not retry them and the admins are told once.
-- Never edit this file once landed: add 015_….sql instead.

ALTER TABLE attention_items DROP CONSTRAINT IF EXISTS attention_items_kind_check;
ALTER TABLE attention_items ADD CONSTRAINT attention_items_kind_check
  CHECK (kind IN ('failed_order', 'unposted_updates', 'orphan_events', 'orphan_summary', 'unreadable_events'));
ALTER TABLE attention_items ADD COLUMN summarized_in text REFERENCES attention_items (id);
CREATE INDEX attention_items_summarized_idx ON attention_items (summarized_in) WHERE summarized_in IS NOT NULL;

CREATE TABLE approval_dm_failures (
  order_id text NOT NULL REFERENCES orders (id),
  approver text NOT NULL,
  -- Slack's error (`account_inactive`, `user_not_found`, `user_disabled`, `cannot_dm_bot`)
  error text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (order_id, approver)
);
