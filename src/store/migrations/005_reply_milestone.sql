-- Which milestone an event's threaded reply announced (placed, shipped, delivered, exception, cancelled), or
-- null when the event was shown without one or kept out of the thread (`updates: milestones`). An order's
-- delivery is announced once: the post-update job reads this before announcing it again.
-- Never edit this file once landed: add 005_….sql instead.

ALTER TABLE supplier_events ADD COLUMN reply_milestone text;
