-- Which process runs each job, beside pg-boss's own tables (src/jobs/pgboss/claims.ts), and the pg-boss 10
-- schemas carried over to pg-boss 12 (src/jobs/pgboss/carry-over.ts).
-- A run claims its job before its handler starts: one row per job, held by the process key whose advisory lock
-- shows it alive. A second run of the same job (pg-boss took it back while the first still ran: a heartbeat or
-- an expiry missed by a starved process) finds the claim of a live process and does not run the handler.
-- Never edit this file once landed: add 022_….sql instead.

CREATE TABLE job_claims (
  job_id uuid PRIMARY KEY,
  queue text NOT NULL,
  owner_key bigint NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_claims_by_owner ON job_claims (owner_key);

-- A pg-boss 10 schema renamed aside at start-up (`pgboss` → `pgboss_v10_<date>`) whose jobs are copied into the
-- new schema: `copied_at` is set in the transaction that copies them, so a start interrupted in between copies
-- them on the next start, and a second start copies nothing again.
CREATE TABLE job_schema_carry_over (
  old_schema text PRIMARY KEY,
  new_schema text NOT NULL,
  renamed_at timestamptz NOT NULL DEFAULT now(),
  copied_at timestamptz,
  jobs_copied integer
);
