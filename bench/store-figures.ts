/**
 * Figures of the store and the job queue on both backends, for the design note:
 * first start and reopen time, idle RSS, single-row insert rate, and job pick-up latency.
 *
 *   npx tsx bench/store-figures.ts                  # PGlite only
 *   DATABASE_URL=postgres://… npx tsx bench/store-figures.ts   # PGlite and PostgreSQL
 *
 * Each backend runs in its own child process so that its RSS is its own. PostgreSQL runs in a throw-away schema.
 */
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createJobs, type Jobs } from "../src/jobs/index.ts";
import { openStore } from "../src/store/db.ts";
import { insertOrder } from "../src/store/repositories/orders.ts";
import type { CreateOrderRequest } from "../src/supplier/schema.ts";

type Backend = "pglite" | "postgres";

interface Figures {
  backend: Backend;
  baselineRssMb: number;
  firstStartMs: number;
  reopenMs: number;
  jobsStartMs: number;
  idleRssMb: number;
  insertsPerSecond: number;
  insertWithJobPerSecond: number;
  pickupSameProcessMs: { median: number; p95: number };
  pickupByPollMs: { median: number; p95: number; pollIntervalMs: number };
}

const INSERTS = 1000;
const PICKUPS = 40;
const POLL_PICKUPS = 20;
const POLL_MS = 1000;

interface Target {
  backend: Backend;
  dataDir: string;
  schema: string;
}

function openTarget(t: Target) {
  return t.backend === "pglite"
    ? openStore({ dataDir: t.dataDir })
    : openStore({ databaseUrl: process.env.DATABASE_URL!, schema: t.schema });
}

/** Phase 1, in its own process: create the store from nothing (initdb on PGlite) and migrate. */
async function firstStart(t: Target): Promise<Pick<Figures, "firstStartMs">> {
  const started = performance.now();
  const store = await openTarget(t);
  const firstStartMs = performance.now() - started;
  await store.close();
  return { firstStartMs: round(firstStartMs) };
}

/** Phase 2, in a fresh process: reopen, then everything else, so RSS is that of a restarted service. */
async function measure(t: Target): Promise<Omit<Figures, "firstStartMs">> {
  const baselineRssMb = rssMb();
  let started = performance.now();
  const store = await openTarget(t);
  const reopenMs = performance.now() - started;

  started = performance.now();
  const jobs = createJobs({ store, pollIntervalMs: POLL_MS });
  await jobs.start();
  const jobsStartMs = performance.now() - started;
  jobs.work("post-update", async (job) => pickupListener(job.data.eventId));
  await sleep(1500);
  const idleRssMb = rssMb();

  const insertsPerSecond = await rate(INSERTS, (i) => insertOrder(store, order(`bench-${i}`)));
  const insertWithJobPerSecond = await rate(INSERTS, (i) =>
    store.transaction(async (tx) => {
      const { order: o } = await insertOrder(tx, order(`bench-job-${i}`));
      await jobs.send("place-order", { orderId: o.id }, { tx });
    }),
  );

  const pickupSameProcessMs = await pickups(jobs, PICKUPS, 200);
  // A second Jobs instance sends: no in-process wake-up reaches the worker, so it waits for its poll.
  const sender = createJobs({ store, pollIntervalMs: POLL_MS });
  await sender.start();
  const pickupByPollMs = { ...(await pickups(sender, POLL_PICKUPS, POLL_MS)), pollIntervalMs: POLL_MS };
  await sender.stop({ graceMs: 0 });
  await jobs.stop({ graceMs: 1000 });
  if (t.backend === "postgres") {
    await store.query(`DROP SCHEMA ${t.schema} CASCADE; DROP SCHEMA ${t.schema}_jobs CASCADE`);
  }
  await store.close();
  return {
    backend: t.backend,
    baselineRssMb,
    reopenMs: round(reopenMs),
    jobsStartMs: round(jobsStartMs),
    idleRssMb,
    insertsPerSecond,
    insertWithJobPerSecond,
    pickupSameProcessMs,
    pickupByPollMs,
  };
}

/** Send → handler start, one job at a time, on the post-update queue (worked by the first Jobs instance). */
async function pickups(
  sender: Jobs,
  count: number,
  jitterMs: number,
): Promise<{ median: number; p95: number }> {
  const samples: number[] = [];
  const waiting = new Map<string, (at: number) => void>();
  pickupListener = (id) => waiting.get(id)?.(performance.now());
  for (let i = 0; i < count; i++) {
    const key = randomUUID();
    const picked = new Promise<number>((resolve) => waiting.set(key, resolve));
    // Send at a random moment relative to the poll cycle.
    await sleep(Math.random() * jitterMs);
    const sentAt = performance.now();
    await sender.send("post-update", { orderId: key, eventId: key });
    samples.push((await picked) - sentAt);
    waiting.delete(key);
  }
  samples.sort((a, b) => a - b);
  return {
    median: round(samples[Math.floor(samples.length / 2)]!),
    p95: round(samples[Math.floor(samples.length * 0.95)]!),
  };
}

let pickupListener: (key: string) => void = () => {};

function order(key: string) {
  const edn = `B-${key}-${randomUUID().slice(0, 8)}`;
  return {
    id: randomUUID(),
    profile: "bench",
    externalDocumentNumber: edn,
    requestedBy: "U_BENCH",
    source: "cli" as const,
    request: {
      externalDocumentNumber: edn,
      orderLines: [{ itemNumber: "X", quantity: 1 }],
    } as CreateOrderRequest,
  };
}

async function rate(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return Math.round((n / (performance.now() - t)) * 1000);
}

function rssMb(): number {
  return Math.round(process.memoryUsage().rss / 1_048_576);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function child(phase: string, t: Target): Promise<void> {
  const result = phase === "first-start" ? await firstStart(t) : await measure(t);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function parent(): void {
  const backends: Backend[] = process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
  if (!process.env.DATABASE_URL) console.log("DATABASE_URL is not set: measuring PGlite only.\n");
  const self = fileURLToPath(import.meta.url);
  const results: Figures[] = [];
  for (const backend of backends) {
    const target: Target = {
      backend,
      dataDir: mkdtempSync(join(tmpdir(), "od-bench-")),
      schema: `bench_${randomBytes(4).toString("hex")}`,
    };
    try {
      const first = runChild(self, "first-start", target);
      const rest = first && runChild(self, "measure", target);
      if (first && rest) results.push({ ...first, ...rest } as unknown as Figures);
    } finally {
      rmSync(target.dataDir, { recursive: true, force: true });
    }
  }
  const rows: Array<[string, (f: Figures) => string]> = [
    ["first start (open + migrate)", (f) => `${f.firstStartMs} ms`],
    ["reopen", (f) => `${f.reopenMs} ms`],
    ["jobs start (pg-boss schema, queues)", (f) => `${f.jobsStartMs} ms`],
    ["idle RSS (store + jobs running)", (f) => `${f.idleRssMb} MB (${f.baselineRssMb} MB before opening)`],
    ["single-row insert (autocommit)", (f) => `${f.insertsPerSecond} rows/s`],
    ["insert + enqueue in one transaction", (f) => `${f.insertWithJobPerSecond} /s`],
    [
      "pick-up, sent in-process (median / p95)",
      (f) => `${f.pickupSameProcessMs.median} / ${f.pickupSameProcessMs.p95} ms`,
    ],
    [
      "pick-up, sent elsewhere (median / p95)",
      (f) =>
        `${f.pickupByPollMs.median} / ${f.pickupByPollMs.p95} ms (poll ${f.pickupByPollMs.pollIntervalMs} ms)`,
    ],
  ];
  const header = ["", ...results.map((r) => r.backend)];
  const table = [header, ...rows.map(([label, cell]) => [label, ...results.map(cell)])];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  "));
  console.log(
    `\nnode ${process.version}; ${INSERTS} inserts; ${PICKUPS} in-process and ${POLL_PICKUPS} polled pick-ups; ` +
      "first start and the rest measured in separate processes",
  );
}

function runChild(self: string, phase: string, target: Target): Record<string, unknown> | null {
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", self, `--child=${phase}`, JSON.stringify(target)],
    {
      encoding: "utf8",
      env: process.env,
      maxBuffer: 1 << 20,
    },
  );
  if (run.status !== 0) {
    console.error(`${target.backend} ${phase} failed:\n${run.stderr}`);
    process.exitCode = 1;
    return null;
  }
  return JSON.parse(run.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
}

const phaseArg = process.argv.find((a) => a.startsWith("--child="));
if (phaseArg) await child(phaseArg.slice("--child=".length), JSON.parse(process.argv.at(-1)!) as Target);
else parent();
