-- `/order export` and `order-desk orders export` read a month's orders in keyset pages of (created_at, id):
-- each page is an index range, not a scan of every order.
-- Never edit this file once landed: add 009_….sql instead.

CREATE INDEX orders_created_at_id_idx ON orders (created_at, id);
