-- "Detach" undoes an admin's "Attach to order…" (docs/operations.md): recorded on the orphan alert's attention item
-- that was resolved as attached, with who detached and when, and what came of it (how many events became orphans
-- again, how many of them had been posted in the order's thread, the new orphan item, the threaded note). The
-- attach itself records in its resolution_detail whether the correlation id became the order's own, an alias
-- (order_aliases), or was the order's already.
-- Never edit this file once landed: add 016_….sql instead.

ALTER TABLE attention_items ADD COLUMN detached_by text;
ALTER TABLE attention_items ADD COLUMN detached_at timestamptz;
ALTER TABLE attention_items ADD COLUMN detach_detail jsonb;
