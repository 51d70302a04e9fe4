-- When an attention item's alert was first handed to Slack (src/orders/operations/post-alert.ts): a post whose
-- answer was lost (a timeout, a kill) left it unrecorded, so the next attempt looks for it in the admin channel,
-- by the item's id in the alert's metadata, before posting it again. Null: never attempted, post straight away.
-- Never edit this file once landed: add the next number instead.

ALTER TABLE attention_items ADD COLUMN alert_attempted_at timestamptz;
