/**
 * The operators' command line: `order-desk jobs list --failed`, `jobs retry ID|--all-failed [--queue NAME]` and
 * `orders export --month YYYY-MM`. On PostgreSQL (a schema of the test database of its own) they list and retry
 * real pg-boss jobs and export real orders; on the embedded store they refuse and name the Slack actions.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runJobs } from "../../src/cli/jobs.ts";
import type { OperationsIo } from "../../src/cli/operations.ts";
import { runOrders } from "../../src/cli/orders.ts";
import { PermanentJobError } from "../../src/jobs/errors.ts";
import { createJobs, type Jobs, QUEUES } from "../../src/jobs/index.ts";
import type { Store } from "../../src/store/db.ts";
import { insertOrder } from "../../src/store/repositories/orders.ts";
import { parseCsv } from "../helpers/csv.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";

function capture(): OperationsIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d) => (out += d));
  return {
    stdout,
    stderr: { write: (chunk: string) => (err += chunk) },
    out: () => out,
    err: () => err,
  };
}

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["bin/order-desk.js", ...args], {
      cwd: new URL("../..", import.meta.url),
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("on the embedded store", () => {
  it.each([
    [["jobs", "list", "--failed"], "jobs"],
    [["jobs", "retry", "--all-failed", "--queue", "place-order"], "jobs"],
    [["orders", "export", "--month", "2026-11"], "orders"],
  ])("order-desk %j refuses and names the Slack actions instead", async (args, command) => {
    const result = await run(args, { ORDER_DESK_DATA_DIR: "./no-such-data-dir" });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      `order-desk ${command}: this Order Desk keeps its data in the embedded store`,
    );
    for (const action of ["Retry now", "Retry posting", "Needs attention", "App Home", "/order export"]) {
      expect(result.stderr).toContain(action);
    }
  });

  it("checks the command before anything else", async () => {
    const io = capture();
    expect(await runJobs(["retry"], {}, io)).toBe(2);
    expect(io.err()).toContain("retry needs a job id or --all-failed");
    expect(await runJobs(["list", "--failed", "--queue", "nope"], {}, io)).toBe(2);
    expect(io.err()).toContain('unknown queue "nope"');
    expect(await runOrders(["export", "--month", "2026-13"], {}, io)).toBe(2);
    expect(io.err()).toContain("That is not a month");
  });
});

describe.runIf(TEST_BACKENDS.includes("postgres"))("on PostgreSQL", () => {
  let store: Store;
  let jobs: Jobs;

  async function order(fields: { ticket: string; status: string; lastError?: object; createdAt?: string }) {
    const id = randomUUID();
    await insertOrder(store, {
      id,
      profile: "Acme EU",
      externalDocumentNumber: `${fields.ticket}-1`,
      customerReference: fields.ticket,
      requestedBy: "U0AGENT01",
      source: "command",
      request: {
        externalDocumentNumber: `${fields.ticket}-1`,
        type: "Standard",
        customerReference: fields.ticket,
        invoice: { id: "INV-1" },
        shipping: {
          deliveryAt: "Home",
          contact: {
            firstName: "Nina",
            lastName: "Newhire",
            phoneNumber: "+31 20 555",
            email: "nina@example.com",
          },
          address1: "Main St 1",
          city: "Utrecht",
          zipCode: "3511 AA",
          countryIso2: "NL",
        },
        orderLines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
      },
    });
    await store.query(
      "UPDATE orders SET status = $2, last_error = $3, created_at = COALESCE($4::timestamptz, created_at) WHERE id = $1",
      [
        id,
        fields.status,
        fields.lastError ? JSON.stringify(fields.lastError) : null,
        fields.createdAt ?? null,
      ],
    );
    return id;
  }

  beforeAll(async () => {
    store = await openTestStore("postgres");
    jobs = createJobs({ store, pollIntervalMs: 50, policies: { "place-order": { retryLimit: 0 } } });
    await jobs.start();
    // Every placement fails for good, as one whose retries ran out does.
    jobs.work(QUEUES.placeOrder, async () => {
      throw new PermanentJobError("supplier unavailable for hours");
    });
  }, 60_000);

  afterAll(async () => {
    await jobs?.stop({ graceMs: 1_000 });
    await store?.close();
  });

  async function failedJob(orderId: string): Promise<string> {
    const id = await jobs.send(QUEUES.placeOrder, { orderId });
    if (!id) throw new Error("not sent");
    for (let i = 0; i < 200; i++) {
      if ((await jobs.getJob(QUEUES.placeOrder, id))?.state === "failed") return id;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`job ${id} did not fail`);
  }

  it("lists the failed jobs, retries one (its order queued again) and skips one the supplier refused", async () => {
    const gaveUp = await order({
      ticket: "CLI-1",
      status: "failed",
      createdAt: "2026-06-01T00:00:00Z",
      lastError: { kind: "failed", retriesExhausted: true, code: "SUPPLIER_UNAVAILABLE" },
    });
    const refused = await order({
      ticket: "CLI-2",
      status: "failed",
      createdAt: "2026-06-01T00:00:00Z",
      lastError: { kind: "rejected", code: "VALIDATION_FAILED" },
    });
    const gaveUpJob = await failedJob(gaveUp);
    const refusedJob = await failedJob(refused);
    await jobs.pause(); // from here on nothing runs the retried job: its state is what the command left

    const listed = capture();
    expect(await runJobs(["list", "--failed"], {}, listed, { store })).toBe(0);
    expect(listed.out()).toContain(`${gaveUpJob}\tplace-order\t`);
    expect(listed.out()).toContain(`\t${gaveUp}\tsupplier unavailable for hours`);
    expect(listed.out()).toContain(refusedJob);
    const json = capture();
    expect(await runJobs(["list", "--failed", "--queue", "post-update", "--json"], {}, json, { store })).toBe(
      0,
    );
    expect(JSON.parse(json.out())).toEqual([]);

    const retried = capture();
    expect(await runJobs(["retry", gaveUpJob], {}, retried, { store })).toBe(0);
    expect(retried.out()).toContain(`retried ${gaveUpJob} (place-order)`);
    expect((await jobs.getJob(QUEUES.placeOrder, gaveUpJob))?.state).toMatch(/^(retry|created)$/);
    const { rows } = await store.query("SELECT status FROM orders WHERE id = $1", [gaveUp]);
    expect(rows[0]?.status).toBe("queued");

    // Again: it is not failed any more.
    const again = capture();
    expect(await runJobs(["retry", gaveUpJob], {}, again, { store })).toBe(1);
    expect(again.err()).toContain("not failed: nothing to retry");

    const all = capture();
    expect(await runJobs(["retry", "--all-failed", "--queue", "place-order"], {}, all, { store })).toBe(0);
    expect(all.out()).toContain(`skipped ${refusedJob} (place-order): the supplier refused the order`);
    expect(all.out()).toContain("0 retried, 1 skipped");
    expect((await jobs.getJob(QUEUES.placeOrder, refusedJob))?.state).toBe("failed");

    expect(await runJobs(["retry", randomUUID()], {}, capture(), { store })).toBe(1);
  }, 60_000);

  it("exports a month's orders as CSV on stdout, with personal data when the customer file says so", async () => {
    await order({ ticket: "EXP-1", status: "queued", createdAt: "2026-11-03T10:00:00Z" });
    await order({ ticket: "EXP-2", status: "queued", createdAt: "2026-11-30T23:59:59Z" });
    await order({ ticket: "EXP-3", status: "queued", createdAt: "2026-12-01T00:00:00Z" });
    const io = capture();
    expect(await runOrders(["export", "--month", "2026-11"], {}, io, { store, personalData: true })).toBe(0);
    const [header, ...rows] = parseCsv(io.out());
    expect(header?.slice(-3)).toEqual(["recipient_email", "recipient_phone", "recipient_address"]);
    expect(rows.map((r) => r[2])).toEqual(["EXP-1", "EXP-2"]);
    expect(rows[0]?.slice(-3)).toEqual(["nina@example.com", "'+31 20 555", "Main St 1, 3511 AA Utrecht, NL"]);
    expect(io.err()).toContain("Exported 2 orders of November 2026");

    // The default month is the clock's.
    const now = capture();
    const clock = () => new Date("2026-12-15T12:00:00Z");
    expect(await runOrders(["export"], {}, now, { store, personalData: false, now: clock })).toBe(0);
    expect(parseCsv(now.out()).map((r) => r[2])).toEqual(["ticket", "EXP-3"]);
  }, 60_000);
});
