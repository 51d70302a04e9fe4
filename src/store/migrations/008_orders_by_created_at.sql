-- `/order export` and `order-desk orders export` read a month's orders in keyset pages of (created_at, id):
-- each page is an index range, not a scan of every order. For each order of a page they read when the supplier
-- first reported it and when it was delivered: its events by order, not a scan of every event.
-- Never edit this file once landed: add 009_….sql instead.

CREATE INDEX orders_created_at_id_idx ON orders (created_at, id);
CREATE INDEX supplier_events_order_occurred_idx ON supplier_events (order_id, occurred_at);
