-- Correlation ids an order answers to besides its own (orders.correlation_id): an admin's "Attach to order…" on
-- an orphan alert names the order the supplier's events of that correlation id belong to. The events waiting
-- then join the order, and so does every later event with that correlation id: they are matched wherever
-- events are matched to orders (the webhook's INSERT, the re-checks after it, the orphan sweep, the
-- post-update job's adoption). One order per correlation id; an order's own correlation id comes first.
-- Never edit this file once landed: add 011_….sql instead.

CREATE TABLE order_aliases (
  correlation_id text PRIMARY KEY,
  order_id text NOT NULL REFERENCES orders (id),
  -- the orphan alert (attention item) whose Attach recorded it, and the admin who attached
  attention_id text REFERENCES attention_items (id),
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX order_aliases_order_idx ON order_aliases (order_id);
