/**
 * Reads a `.cpuprofile` (from `npm run bench -- --profile NAME`) and prints where the time went, without
 * opening DevTools:
 *
 *   npx tsx bench/profile-summary.ts FILE [self|incl|package] [TOP=30] [FILTER]
 *
 * `self`: time in each function itself; `incl`: time in each function and what it called; `package`: self
 * time per npm package or source file. FILTER keeps the lines containing it (e.g. `src/`).
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export type SummaryMode = "self" | "incl" | "package";

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^file:\/\//, "").replace(/^.*?\/(src|bench|test|node_modules)\//, "$1/");
  return `${functionName || "(anonymous)"} ${where}${where ? `:${lineNumber + 1}` : ""}`;
}

function packageOf(node: ProfileNode): string {
  const url = node.callFrame.url;
  const pkg = /node_modules\/(@[^/]+\/[^/]+|[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  return (
    url.replace(/^file:\/\//, "").replace(/^.*?\/(src|bench|test)\//, "$1/") || node.callFrame.functionName
  );
}

/** Milliseconds per key, largest first, and the profile's total. */
export function summarizeProfile(
  profile: CpuProfile,
  mode: SummaryMode,
): { totalMs: number; rows: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfMicros = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + dt);
    total += dt;
  });
  const out = new Map<string, number>();
  const add = (key: string, micros: number) => out.set(key, (out.get(key) ?? 0) + micros);
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (!node) continue;
    if (mode === "self") add(label(node), micros);
    else if (mode === "package") add(packageOf(node), micros);
    else {
      // Each function once per sample, however deep the recursion.
      const seen = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const n = byId.get(cur);
        if (!n) break;
        const key = label(n);
        if (!seen.has(key)) add(key, micros);
        seen.add(key);
      }
    }
  }
  const rows = [...out].map(([k, v]): [string, number] => [k, v / 1000]).sort((a, b) => b[1] - a[1]);
  return { totalMs: total / 1000, rows };
}

if (process.argv[1]?.endsWith("profile-summary.ts")) {
  const [file, mode = "self", top = "30", filter = ""] = process.argv.slice(2);
  if (!file || !["self", "incl", "package"].includes(mode)) {
    process.stderr.write("usage: npx tsx bench/profile-summary.ts FILE [self|incl|package] [TOP] [FILTER]\n");
    process.exit(2);
  }
  const { totalMs, rows } = summarizeProfile(
    JSON.parse(readFileSync(file, "utf8")) as CpuProfile,
    mode as SummaryMode,
  );
  process.stdout.write(`${file}: ${totalMs.toFixed(0)} ms sampled\n`);
  for (const [key, ms] of rows.filter(([k]) => k.includes(filter)).slice(0, Number(top))) {
    process.stdout.write(
      `${((100 * ms) / totalMs).toFixed(1).padStart(5)} % ${ms.toFixed(0).padStart(7)} ms  ${key}\n`,
    );
  }
}
