-- One claim per approver and approval round on the approver's DM (src/orders/approvals/ask.ts), shared by the
-- approval-request job and the reminder, which asks an approver whose DM had failed: whichever claims it first DMs
-- them; the other leaves them alone while the claim is held, so the two never both post it. A claim never followed
-- by `sent_at` (the run died) is taken over once it is older than the longest a run may take. `sent_at`: the DM is
-- recorded in `approval_messages` (the same statement). `counts_as_reminder`: the DM goes out once the reminder is
-- due (the reminder asked, or found it being asked), so it is the approver's reminder and none follows in its thread.
-- A new approval round (Fix and resubmit) clears the rows with the round's DMs.
-- Never edit this file once landed: add the next number instead.

ALTER TABLE approval_dm_attempts ADD COLUMN claimed_at timestamptz;
ALTER TABLE approval_dm_attempts ADD COLUMN sent_at timestamptz;
ALTER TABLE approval_dm_attempts ADD COLUMN counts_as_reminder boolean NOT NULL DEFAULT false;
