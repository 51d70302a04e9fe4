-- Lets one statement that writes several tables refuse its own result: `expect_rows(count, wanted)` in its
-- final SELECT raises when a data-modifying WITH query wrote fewer rows than asked (an ON CONFLICT DO NOTHING
-- that skipped one), and the raise undoes everything the statement wrote, counters included.
-- The SQLSTATE is ours (class OD), so callers tell it from every other failure.
-- Never edit this file once landed: add 004_….sql instead.

CREATE FUNCTION expect_rows(got bigint, wanted bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
  IF got <> wanted THEN
    RAISE EXCEPTION 'expected % rows written, got %', wanted, got USING ERRCODE = 'OD001';
  END IF;
  RETURN got;
END
$$;
