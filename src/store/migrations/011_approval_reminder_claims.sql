-- Approval reminders, never lost: a run of the reminder job claims an approver's reminder (`remind_claimed_at`)
-- before sending it, and sets `reminded_at` once Slack took it. A claim never followed by `reminded_at` (the process
-- died in between) is taken over once it is older than the longest a run may take, so the reminder is sent then;
-- a claim held by a live run keeps a second run from sending it too.
-- Never edit this file once landed: add 012_….sql instead.

ALTER TABLE approval_messages ADD COLUMN remind_claimed_at timestamptz;
