/**
 * Each scenario records its figures (and the secrets its world used, for the final log scan) as JSON in the
 * run directory that the global setup created; the global teardown prints them as one table.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    reliabilityRunDir: string;
  }
}

export interface ScenarioResult {
  scenario: string;
  ordersSubmitted?: number;
  ordersPlaced?: number;
  ordersDoubled?: number;
  ordersLost?: number;
  originMessagesMissing?: number;
  originMessagesDoubled?: number;
  eventsSent?: number;
  eventsPosted?: number;
  eventsDoubled?: number;
  eventsLost?: number;
  eventsOutOfOrder?: number;
  inputsTried?: number;
  crashes?: number;
  http5xx?: number;
  /** Accepted inputs that should have been refused, or refused ones that left something stored. */
  leaks?: number;
  kills?: number;
  /** Socket Mode (harness/socket-figures.ts). */
  envelopesSent?: number;
  envelopesAcked?: number;
  envelopesRedelivered?: number;
  envelopesAckedTwice?: number;
  durationMs: number;
  notes?: string[];
}

export function runDir(): string {
  return inject("reliabilityRunDir");
}

export function logPath(name: string): string {
  const dir = join(runDir(), "logs");
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.log`);
}

export function record(result: ScenarioResult, secrets: readonly string[] = []): void {
  const dir = join(runDir(), "results");
  mkdirSync(dir, { recursive: true });
  const file = result.scenario.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
  writeFileSync(join(dir, `${file}.json`), JSON.stringify(result, null, 2));
  if (secrets.length > 0) {
    mkdirSync(join(runDir(), "secrets"), { recursive: true });
    writeFileSync(join(runDir(), "secrets", `${file}.json`), JSON.stringify(secrets));
  }
}

export function readResults(dir: string): ScenarioResult[] {
  const results = join(dir, "results");
  let files: string[] = [];
  try {
    files = readdirSync(results).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
  return files.sort().map((f) => JSON.parse(readFileSync(join(results, f), "utf8")) as ScenarioResult);
}

export function readSecrets(dir: string): string[] {
  const secrets = join(dir, "secrets");
  let files: string[] = [];
  try {
    files = readdirSync(secrets);
  } catch {
    return [];
  }
  return files.flatMap((f) => JSON.parse(readFileSync(join(secrets, f), "utf8")) as string[]);
}
