/** Crash and restart on PostgreSQL (harness/crash-scenario.ts); runs when DATABASE_URL is set, as `.ci/run` does. */
import { describe } from "vitest";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { crashScenario } from "./harness/crash-scenario.ts";

if (TEST_BACKENDS.includes("postgres")) crashScenario("postgres");
// Skipped only without a PostgreSQL server to run on (DATABASE_URL unset); CI always sets it.
else
  describe.skip("Order Desk killed with SIGKILL at random moments, on postgres (DATABASE_URL is not set)", () => {});
