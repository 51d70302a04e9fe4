-- When a budget alert (021) was first handed to Slack (src/orders/budget/alert-job.ts), recorded before the call: a
-- post whose answer was lost (a timeout, a kill before told_at was set) left it without told_at, so the next attempt
-- looks for the alert in the admin channel, by its key in the alert's metadata, before posting it again. Null: never
-- attempted, post straight away.
-- Never edit this file once landed: add the next number instead.

ALTER TABLE budget_alerts ADD COLUMN attempted_at timestamptz;
