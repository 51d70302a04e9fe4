-- Each order line's unit price at the customer's agreed prices when the order was accepted (docs/configuration.md,
-- Prices): a JSON array of exact decimal strings in the order of the request's lines, so that the export's unit
-- prices and line totals add up to the stored total even after the catalog's prices change. Null without prices.
-- Never edit this file once landed: add the next number instead.

ALTER TABLE orders ADD COLUMN line_prices jsonb;
