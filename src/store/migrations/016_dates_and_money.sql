-- Dates that matter and money (docs/configuration.md: leadTimes, watchdog, currency, prices, budgets).
-- needed_by: the date the order must be delivered by (a new hire's first day), when someone gave one.
-- expected_delivery: our best estimate of delivery; from the customer file's lead times at placement
-- (expected_delivery_source 'lead_time'), replaced by the supplier's latest estimate ('supplier').
-- total/currency: the order's total at the customer's agreed prices, exact decimal; null without prices.
-- Never edit this file once landed: add 017_….sql instead.

ALTER TABLE orders ADD COLUMN needed_by date;
ALTER TABLE orders ADD COLUMN expected_delivery date;
ALTER TABLE orders ADD COLUMN expected_delivery_source text
  CHECK (expected_delivery_source IN ('lead_time', 'supplier'));
ALTER TABLE orders ADD COLUMN total numeric(20, 4) CHECK (total >= 0);
ALTER TABLE orders ADD COLUMN currency text;
