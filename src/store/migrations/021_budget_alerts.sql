-- Budget alerts claimed once (docs/configuration.md, "Budgets"; src/orders/budget/): one row per profile, month and
-- alert (the month's spend reaching 80 % or 100 % of the budget, or an order placed over it with onExceed: warn),
-- inserted by the transaction that accepts the order which reaches it, under the lock of the profile's month row.
-- The row is the decision that the admins are told: a retry, a restart or another replica finds it taken and tells
-- nobody again. told_at records that the alert job told them, so a rerun of that job does not repeat it.
-- budget_months.alerted_80_at / alerted_100_at (019) are copied here and no longer written.
-- Never edit this file once landed: add the next number instead.

CREATE TABLE budget_alerts (
  profile text NOT NULL,
  month text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
  kind text NOT NULL CHECK (kind IN ('80', '100', 'over')),
  -- The order that reached it.
  order_id text REFERENCES orders (id),
  claimed_at timestamptz NOT NULL,
  told_at timestamptz,
  PRIMARY KEY (profile, month, kind)
);

-- Alerts recorded before this table: their jobs may still be queued, so they count as claimed but not yet told.
INSERT INTO budget_alerts (profile, month, kind, claimed_at)
  SELECT profile, month, '80', alerted_80_at FROM budget_months WHERE alerted_80_at IS NOT NULL
  UNION ALL
  SELECT profile, month, '100', alerted_100_at FROM budget_months WHERE alerted_100_at IS NOT NULL;
