-- When an order's approval request was counted in `order_desk_approvals_requested_total`. The approval-request job
-- sets it with a conditional UPDATE and counts only when it did, so a run repeated (a retry after a failed DM, a
-- restart) counts the request once; a resubmission that asks again clears it (a new request).
-- Never edit this file once landed: add 013_….sql instead.

ALTER TABLE orders ADD COLUMN approval_counted_at timestamptz;
