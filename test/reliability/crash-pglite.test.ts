/** Crash and restart on the embedded store (harness/crash-scenario.ts). */
import { crashScenario } from "./harness/crash-scenario.ts";

crashScenario("pglite");
