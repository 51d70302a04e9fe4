-- `/order status TICKET-123` lists a ticket's orders: look them up by customer reference without a scan.
-- Never edit this file once landed: add 006_….sql instead.

CREATE INDEX orders_customer_reference_idx ON orders (customer_reference, created_at DESC);
