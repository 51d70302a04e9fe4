/** Crash and restart on PostgreSQL (harness/crash-scenario.ts); runs when DATABASE_URL is set, as `.ci/run` does. */
import { describe } from "vitest";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { crashScenario } from "./harness/crash-scenario.ts";

if (TEST_BACKENDS.includes("postgres")) {
  crashScenario("postgres");
} else {
  // Skipped because there is no PostgreSQL server to crash against: DATABASE_URL is unset. `.ci/run` sets it
  // whenever 127.0.0.1:5432 answers (it does on the CI machine), so CI always runs this scenario; locally, set
  // DATABASE_URL to run it. The PGlite scenario (crash-pglite.test.ts) runs either way.
  describe.skip("Order Desk killed with SIGKILL at random moments, on postgres (DATABASE_URL is not set)", () => {});
}
