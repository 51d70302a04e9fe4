import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type PlaceDeps, runPlace } from "../../src/cli/place.ts";
import { validOrder } from "../../tools/example-order.ts";
import { LIVE_KEY, TEST_KEY } from "./support/fixtures.ts";
import {
  failure,
  type Reply,
  type StubSupplier,
  startStubSupplier,
  success,
} from "./support/stub-supplier.ts";

const dispatcher = new Agent({ keepAliveTimeout: 5_000 });
let dir: string;
let stub: StubSupplier | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "order-desk-place-"));
  await writeFile(join(dir, "order.json"), JSON.stringify(validOrder()));
  await writeFile(join(dir, "invalid.json"), JSON.stringify(validOrder({ invoice: { id: "" } })));
  await writeFile(join(dir, "broken.json"), "{ not json");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await dispatcher.close();
});
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

interface Run {
  exitCode: number;
  output: Record<string, unknown>;
  stdout: string;
  requests: number;
}

async function place(
  replies: Reply[],
  argv: string[],
  env: Record<string, string | undefined> = {},
  deps: PlaceDeps = {},
): Promise<Run> {
  stub = await startStubSupplier(replies);
  let stdout = "";
  let stderr = "";
  const exitCode = await runPlace(
    argv,
    { SUPPLIER_BASE_URL: stub.baseUrl, SUPPLIER_ENVIRONMENT: "test", SUPPLIER_API_KEY: TEST_KEY, ...env },
    { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } },
    { dispatcher, cwd: dir, sleep: async () => {}, timeoutMs: 500, ...deps },
  );
  expect(stderr).toBe("");
  expect(stdout.endsWith("\n") && stdout.split("\n").length === 2).toBe(true); // exactly one line
  expect(stdout).not.toContain(TEST_KEY);
  expect(stdout).not.toContain(LIVE_KEY);
  return { exitCode, output: JSON.parse(stdout), stdout, requests: stub.requests.length };
}

describe("order-desk place", () => {
  it("places the order and prints the correlationId, exit 0", async () => {
    const id = "6a1f3c1e-8b7d-4e2f-9a0b-1c2d3e4f5a6b";
    const run = await place([success(id)], ["--file", "order.json"]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe(`{"ok":true,"correlationId":"${id}","externalDocumentNumber":"PO-2025-0001"}\n`);
  });

  it("reports an order placed by an earlier attempt, exit 0", async () => {
    const run = await place(["reset", failure(409, "DUPLICATE_ORDER")], ["-f", "order.json"]);
    expect(run.exitCode).toBe(0);
    expect(run.output).toEqual({
      ok: true,
      correlationId: null,
      externalDocumentNumber: "PO-2025-0001",
      placedEarlier: true,
    });
  });

  it("rejects an order that fails our checks without sending it, exit 2", async () => {
    const run = await place([success()], ["--file", "invalid.json"]);
    expect(run.exitCode).toBe(2);
    expect(run.output).toMatchObject({
      ok: false,
      code: "LOCAL_VALIDATION_FAILED",
      details: { "Invoice.Id": ["'Invoice.Id' must not be empty."] },
    });
    expect(run.requests).toBe(0);
  });

  it("passes on the supplier's validation details, exit 2", async () => {
    const details = { "Shipping.ZipCode": ["Unknown postal code"] };
    const run = await place(
      [failure(400, "VALIDATION_FAILED", "One or more validation errors occurred.", details)],
      ["--file", "order.json"],
    );
    expect(run.exitCode).toBe(2);
    expect(run.output).toMatchObject({ ok: false, code: "VALIDATION_FAILED", details });
    expect(run.output.correlationId).toEqual(expect.any(String));
  });

  it("rejects a duplicate, exit 2", async () => {
    const run = await place([failure(409, "DUPLICATE_ORDER")], ["--file", "order.json"]);
    expect(run.exitCode).toBe(2);
    expect(run.output).toMatchObject({ code: "DUPLICATE_ORDER", externalDocumentNumber: "PO-2025-0001" });
  });

  it.each([
    ["missing", "nope.json", /does not exist/],
    ["not JSON", "broken.json", /not valid JSON/],
    ["a directory", ".", /is a directory/],
  ])("explains a file that is %s, exit 2", async (_, file, message) => {
    const run = await place([success()], ["--file", file]);
    expect(run.exitCode).toBe(2);
    expect(run.output).toMatchObject({
      ok: false,
      code: "INVALID_FILE",
      message: expect.stringMatching(message),
    });
  });

  it("requires --file and refuses unknown options, exit 2", async () => {
    expect((await place([success()], [])).output).toMatchObject({ code: "USAGE" });
    expect((await place([success()], ["--file", "order.json", "--fast"])).exitCode).toBe(2);
  });

  it("reports a 401 as unauthorized, exit 3", async () => {
    const run = await place([{ status: 401, body: "Unauthorized" }], ["--file", "order.json"]);
    expect(run.exitCode).toBe(3);
    expect(run.output).toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("refuses a live key for a test target before sending, exit 3", async () => {
    const run = await place([success()], ["--file", "order.json"], { SUPPLIER_API_KEY: LIVE_KEY });
    expect(run.exitCode).toBe(3);
    expect(run.output).toMatchObject({ code: "KEY_ENVIRONMENT_MISMATCH" });
    expect(run.requests).toBe(0);
  });

  it("reads the key from the variable named by --api-key-env, and says when it is missing, exit 3", async () => {
    const missing = await place([success()], ["--file", "order.json", "--api-key-env", "OTHER_KEY"]);
    expect(missing.exitCode).toBe(3);
    expect(missing.output).toMatchObject({ code: "MISSING_API_KEY", message: "No API key: set OTHER_KEY." });
    const found = await place([success()], ["--file", "order.json", "--api-key-env", "OTHER_KEY"], {
      OTHER_KEY: TEST_KEY,
      SUPPLIER_API_KEY: undefined,
    });
    expect(found.exitCode).toBe(0);
  });

  it("reports the supplier unavailable after retries, exit 4", async () => {
    const run = await place([{ status: 503, body: "<html>down</html>" }], ["--file", "order.json"]);
    expect(run.exitCode).toBe(4);
    expect(run.output).toMatchObject({
      code: "SUPPLIER_UNAVAILABLE",
      reason: "retries_exhausted",
      attempts: 3,
    });
    expect(run.requests).toBe(3);
  });

  it("uses --base-url over SUPPLIER_BASE_URL", async () => {
    stub = await startStubSupplier([success()]);
    const target = stub;
    let stdout = "";
    const code = await runPlace(
      ["--file", "order.json", "--base-url", target.baseUrl],
      { SUPPLIER_BASE_URL: "http://127.0.0.1:9/unused", SUPPLIER_API_KEY: TEST_KEY },
      { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => true } },
      { dispatcher, cwd: dir },
    );
    expect(code).toBe(0);
    expect(target.requests).toHaveLength(1);
    expect(JSON.parse(stdout).ok).toBe(true);
  });

  it("treats missing configuration and a protocol error as other failures, exit 1", async () => {
    expect(
      (await place([success()], ["--file", "order.json"], { SUPPLIER_BASE_URL: "" })).output,
    ).toMatchObject({
      code: "CONFIG",
    });
    expect(
      (await place([success()], ["--file", "order.json"], { SUPPLIER_ENVIRONMENT: "prod" })).exitCode,
    ).toBe(1);
    const protocol = await place([{ status: 200, body: "OK" }], ["--file", "order.json"]);
    expect(protocol.exitCode).toBe(1);
    expect(protocol.output).toMatchObject({ code: "PROTOCOL_ERROR" });
  });
});
