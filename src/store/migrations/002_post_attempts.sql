-- When a Slack post was last attempted, recorded before the call. A post whose process died between Slack's
-- answer and the recorded ts leaves this set with no ts: the retry looks for the message (by its metadata)
-- before posting again, so a crash never shows a reply or an order message twice.
-- Never edit this file once landed: add 003_….sql instead.

ALTER TABLE supplier_events ADD COLUMN post_attempted_at timestamptz;
ALTER TABLE orders ADD COLUMN message_attempted_at timestamptz;
