-- Monthly budgets per profile (docs/configuration.md, "Budgets"; src/orders/budget/).
-- orders.budget_month: the calendar month (YYYY-MM, in the customer file's timeZone) an order with a total counts in,
-- fixed when it is accepted; the month's spend is the sum of the totals of its orders that still count.
-- budget_months: one row per profile and month, locked (SELECT … FOR UPDATE, by an upsert) by every transaction that
-- accepts an order of the profile, so that the budget check and the order's insert are one decision: two orders
-- submitted at once never both pass a budget that fits one. It also records when the admins were told that the
-- month's spend crossed 80 % and 100 % of the budget, so each is told once per month.
-- Never edit this file once landed: add 020_….sql instead.

ALTER TABLE orders ADD COLUMN budget_month text;
CREATE INDEX orders_budget_month_idx ON orders (profile, budget_month) WHERE budget_month IS NOT NULL;

CREATE TABLE budget_months (
  profile text NOT NULL,
  month text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
  alerted_80_at timestamptz,
  alerted_100_at timestamptz,
  PRIMARY KEY (profile, month)
);
