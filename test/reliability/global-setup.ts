/**
 * The reliability run's frame: creates the run directory (logs and per-scenario results), and at the end
 * prints the summary table, scans every captured log for every secret the scenarios used, and fails the run on
 * any loss, double, crash, 5xx or leaked secret — even one a scenario's own assertions missed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { scanDir } from "./harness/logs.ts";
import { readResults, readSecrets, type ScenarioResult } from "./harness/results.ts";

const COLUMNS: Array<[keyof ScenarioResult, string]> = [
  ["ordersSubmitted", "orders submitted"],
  ["ordersPlaced", "placed"],
  ["ordersDoubled", "doubled"],
  ["ordersLost", "lost"],
  ["eventsSent", "events sent"],
  ["eventsPosted", "posted"],
  ["eventsDoubled", "doubled"],
  ["eventsLost", "lost"],
  ["eventsOutOfOrder", "out of order"],
  ["inputsTried", "inputs tried"],
  ["crashes", "crashes"],
  ["http5xx", "5xx"],
  ["leaks", "leaks"],
  ["kills", "kills"],
  ["envelopesSent", "envelopes"],
  ["envelopesRedelivered", "sent again"],
  ["envelopesAckedTwice", "acked twice"],
  ["durationMs", "time"],
];

/** Figures that must be zero. */
const MUST_BE_ZERO: Array<keyof ScenarioResult> = [
  "ordersDoubled",
  "ordersLost",
  "originMessagesMissing",
  "originMessagesDoubled",
  "eventsDoubled",
  "eventsLost",
  "eventsOutOfOrder",
  "crashes",
  "http5xx",
  "leaks",
  "envelopesAckedTwice",
];

function cell(result: ScenarioResult, key: keyof ScenarioResult): string {
  const value = result[key];
  if (value === undefined) return "–";
  if (key === "durationMs") return `${((value as number) / 1000).toFixed(1)} s`;
  return String(value);
}

export function renderTable(results: ScenarioResult[]): string {
  const header = ["scenario", ...COLUMNS.map(([, title]) => title)];
  const rows = results.map((r) => [r.scenario, ...COLUMNS.map(([key]) => cell(r, key))]);
  const totals: string[] = ["total"];
  for (const [key] of COLUMNS) {
    const values = results.map((r) => r[key]).filter((v): v is number => typeof v === "number");
    const sum = values.reduce((a, b) => a + b, 0);
    totals.push(
      values.length === 0 ? "–" : key === "durationMs" ? `${(sum / 1000).toFixed(1)} s` : String(sum),
    );
  }
  const all = [header, ...rows, totals];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) =>
    `| ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(header), rule, ...rows.map(line), rule, line(totals)].join("\n");
}

export default function setup(project: TestProject) {
  const dir = process.env.RELIABILITY_DIR || mkdtempSync(join(tmpdir(), "order-desk-reliability-"));
  project.provide("reliabilityRunDir", dir);
  const started = Date.now();

  return () => {
    const results = readResults(dir);
    const scan = scanDir(join(dir, "logs"), readSecrets(dir));
    const out: string[] = ["", "Order Desk reliability summary", "", renderTable(results), ""];
    for (const r of results) for (const n of r.notes ?? []) out.push(`  ${r.scenario}: ${n}`);
    out.push(
      "",
      `Log scan: ${scan.files} log files, ${(scan.bytes / 1024).toFixed(0)} KiB, ` +
        `${readSecrets(dir).length} secrets searched, ${scan.findings.length} found` +
        scan.findings.map((f) => `\n  ${f.secret} in ${f.file}:${f.line}`).join(""),
    );
    const bad = results.flatMap((r) =>
      MUST_BE_ZERO.filter((k) => typeof r[k] === "number" && (r[k] as number) > 0).map(
        (k) => `${r.scenario}: ${k} = ${r[k]}`,
      ),
    );
    if (scan.findings.length > 0) bad.push(`${scan.findings.length} secret(s) found in the logs`);
    out.push(`Wall time: ${((Date.now() - started) / 1000).toFixed(1)} s. Run directory: ${dir}`);
    process.stdout.write(`${out.join("\n")}\n`);
    if (bad.length > 0) {
      process.exitCode = 1;
      throw new Error(`reliability run failed:\n  ${bad.join("\n  ")}`);
    }
    if (!process.env.RELIABILITY_DIR && process.env.RELIABILITY_KEEP !== "1") {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
