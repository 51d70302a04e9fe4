-- Who last resubmitted a failed order with "Fix and resubmit", and when. Anyone the order's profile lets order may
-- fix a colleague's order (to another address, too), so the order records it and its message shows it.
-- Never edit this file once landed: add 005_….sql instead.

ALTER TABLE orders ADD COLUMN resubmitted_by text;
ALTER TABLE orders ADD COLUMN resubmitted_at timestamptz;
