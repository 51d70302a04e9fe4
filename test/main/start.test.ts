/**
 * `order-desk start` as an operator runs it: a real child process configured only through its environment,
 * talking to the supplier sandbox, the fake Slack and a local Secrets Manager over HTTP. It serves health and
 * readiness on the public port and metrics and readiness details on the operations listener, takes an order
 * from Slack to the supplier and back into the thread, logs JSON with no secret in it (not even a password in
 * the supplier's URL), and stops cleanly on SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxHandle } from "../../src/sandbox/sandbox.ts";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import { VERSION } from "../../src/version.ts";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import type { FakeSlack } from "../../tools/fake-slack/index.ts";
import { freePort, startWorld, type World } from "../../tools/world.ts";
import { parsePrometheusText, sampleValue } from "../ops/prometheus.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HELPDESK = "C0HELPDESK";
const AGENT = "U0AGENT01";
/** Written into SUPPLIER_BASE_URL (`http://user:password@host`), as some set-ups do: never printed. */
const URL_PASSWORD = "url-pass-7f3a9c";

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startProcess(env: Record<string, string>): Running {
  const child = spawn(process.execPath, ["bin/order-desk.js", "start"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => (stdout += d));
  child.stderr?.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("order-desk start", () => {
  let dir: string;
  let world: World;
  let sandbox: SandboxHandle;
  let fake: FakeSlack;
  let app: Running;
  let url: string;
  let opsUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "order-desk-start-"));
    const opsPort = await freePort();
    opsUrl = `http://127.0.0.1:${opsPort}`;
    world = await startWorld({
      speed: 2000,
      seed: "start-test",
      slack: {
        users: [{ id: AGENT, name: "alice", realName: "Alice Agent" }],
        channels: [
          { id: HELPDESK, name: "helpdesk" },
          { id: "C0ITADMIN", name: "it-admin" },
        ],
      },
    });
    ({ sandbox, fake, appUrl: url } = world);
    apiKey = world.keys[0] as string;
    // The key comes from the world's Secrets Manager, as a deployment reads it; the supplier's URL carries a
    // password, as some set-ups do.
    app = startProcess(
      world.env({
        ORDER_DESK_DATA_DIR: join(dir, "data"),
        OPS_HTTP_PORT: String(opsPort),
        SUPPLIER_BASE_URL: sandbox.url.replace("http://", `http://odbasic:${URL_PASSWORD}@`),
        WEBHOOK_SETTLE_MS: "100",
        LOG_LEVEL: "info",
      }),
    );
    await waitFor(
      "/readyz to answer 200",
      async () => {
        const res = await fetch(`${url}/readyz`);
        return res.status === 200 ? true : undefined;
      },
      60_000,
    );
  }, 90_000);

  afterAll(async () => {
    if (app && app.child.exitCode === null) app.child.kill("SIGKILL");
    await world?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Alice orders a laptop for Nina with `/order TICKET` and the modal, over Slack's signed HTTP requests. */
  async function orderThroughSlack(ticket: string): Promise<void> {
    const alice = world.user(AGENT);
    const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    const view = await alice.openedModal(triggerId);
    const submitted = await alice.submit(view.id, { profile: "Acme EU", ...EXAMPLE_DELIVERY });
    expect(submitted.outcome.outcome).toBe("closed");
  }

  it("answers /healthz and a detail-free /readyz publicly, and metrics and what it checked only on the operations listener", async () => {
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, status: "ready" });
    expect((await fetch(`${url}/metrics`)).status).toBe(404);

    expect((await fetch(`${opsUrl}/healthz`)).status).toBe(200);
    const detailed = await fetch(`${opsUrl}/readyz`);
    expect(detailed.status).toBe(200);
    expect(await detailed.json()).toMatchObject({
      ok: true,
      checks: { store: { ok: true }, queue: { ok: true } },
    });
    const metrics = await fetch(`${opsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    const exposition = parsePrometheusText(await metrics.text());
    expect(
      sampleValue(exposition, "order_desk_build_info", { version: VERSION, node: process.version }),
    ).toBe(1);
    expect(exposition.samples.some((s) => s.name === "process_resident_memory_bytes")).toBe(true);
  });

  it("takes an order from /order to the supplier and threads the supplier's updates", async () => {
    await orderThroughSlack("OPS-1");

    const transcript = await waitFor(
      "the order's thread to end delivered",
      async () => {
        const text = fake.transcript(HELPDESK, { statusBlockId: STATUS_LINE_BLOCK_ID });
        return /status: .*Delivered/.test(text) ? text : undefined;
      },
      60_000,
    );
    expect(transcript).toContain("OPS-1");
    expect((await sandbox.orders()).filter((o) => o.externalDocumentNumber === "OPS-1-1")).toHaveLength(1);

    const metrics = parsePrometheusText(await (await fetch(`${opsUrl}/metrics`)).text());
    expect(sampleValue(metrics, "order_desk_orders_placed_total", { source: "command" })).toBe(1);
    expect(
      sampleValue(metrics, "order_desk_webhook_events_total", { type: "order.status_changed" }),
    ).toBeGreaterThan(0);
    expect(sampleValue(metrics, "order_desk_queue_depth", { queue: "place-order" })).toBeDefined();
  }, 90_000);

  it("on SIGTERM finishes a placement in flight, retries included, then exits 0, having logged JSON lines without any secret", async () => {
    // The supplier is down (503, Retry-After: 1) when the order is placed, and back a moment after SIGTERM: the
    // running job keeps its supplier connections through the grace period, retries, and places the order once.
    sandbox.setFaults({ outage: true });
    await orderThroughSlack("OPS-2");
    await waitFor("the placing message", async () =>
      fake.transcript(HELPDESK).includes("OPS-2") ? true : undefined,
    );

    app.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    sandbox.setFaults({ outage: false });
    expect(await app.exited).toBe(0);
    expect((await sandbox.orders()).filter((o) => o.externalDocumentNumber === "OPS-2-1")).toHaveLength(1);
    expect(app.stdout()).toMatch(/"msg":"order placed"/);
    const lines = app.stdout().trim().split("\n");
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const everything = app.stdout() + app.stderr();
    const running = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "Order Desk is running");
    expect(running).toMatchObject({
      supplier: sandbox.url.replace("http://", "http://***@"),
      opsUrl,
      version: VERSION,
      node: process.version,
    });
    for (const secret of [...world.secrets(), URL_PASSWORD]) {
      expect(everything).not.toContain(secret);
    }
    // Personal data is redacted by default.
    expect(everything).not.toContain("nina@example.com");
  }, 60_000);

  it("refuses to start with a broken environment, listing every problem", async () => {
    const broken = startProcess({ HTTP_PORT: "eighty", SLACK_MODE: "http" });
    expect(await broken.exited).toBe(1);
    const stderr = broken.stderr();
    for (const name of [
      "HTTP_PORT",
      "SLACK_BOT_TOKEN",
      "SUPPLIER_BASE_URL",
      "SLACK_SIGNING_SECRET",
      "WEBHOOK_SECRETS",
    ]) {
      expect(stderr).toContain(name);
    }
  });

  it("refuses to start, naming the cause, when SLACK_API_URL does not end in /api/ (auth.test answers 404)", async () => {
    const withoutApi = fake.apiUrl.replace(/\/api\/$/, "");
    const bad = startProcess({
      ORDER_DESK_CONFIG: join(ROOT, "examples/order-desk.config.yml"),
      ORDER_DESK_DATA_DIR: join(dir, "bad-api-url"),
      HTTP_PORT: "0",
      OPS_HTTP_PORT: "0",
      SLACK_MODE: "http",
      SLACK_BOT_TOKEN: world.botToken,
      SLACK_SIGNING_SECRET: world.signingSecret,
      SLACK_API_URL: withoutApi,
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY: apiKey,
      WEBHOOK_SECRETS: sandbox.webhookSecrets.join(","),
      LOG_LEVEL: "silent",
    });
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toContain(
      `SLACK_API_URL (${withoutApi}) answered 404: it must be the Web API's base URL and end in /api/, for example ${withoutApi}/api/`,
    );
  }, 60_000);

  it("refuses to start, saying why, when Slack does not accept the bot token", async () => {
    const bad = startProcess({
      ORDER_DESK_CONFIG: join(ROOT, "examples/order-desk.config.yml"),
      ORDER_DESK_DATA_DIR: join(dir, "bad-token"),
      HTTP_PORT: "0",
      OPS_HTTP_PORT: "0",
      SLACK_MODE: "http",
      SLACK_BOT_TOKEN: "xoxb-bogus",
      SLACK_SIGNING_SECRET: world.signingSecret,
      SLACK_API_URL: fake.apiUrl,
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY: apiKey,
      WEBHOOK_SECRETS: world.webhookSecrets.join(","),
      LOG_LEVEL: "silent",
    });
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toMatch(/Slack did not accept the bot token \(auth.test: invalid_auth\)/);
    expect(bad.stderr()).not.toContain(apiKey);
  }, 60_000);

  it("when Slack cannot be reached at all, names the network error in one line, no stack on stdout, no ./data left", async () => {
    const dataDir = join(dir, "unreachable-slack");
    const bad = startProcess({
      ORDER_DESK_CONFIG: join(ROOT, "examples/order-desk.config.yml"),
      ORDER_DESK_DATA_DIR: dataDir,
      HTTP_PORT: "0",
      OPS_HTTP_PORT: "0",
      SLACK_MODE: "http",
      SLACK_BOT_TOKEN: world.botToken,
      SLACK_SIGNING_SECRET: world.signingSecret,
      // Nothing listens there: the connection is refused.
      SLACK_API_URL: `http://127.0.0.1:${await freePort()}/api/`,
      SLACK_TIMEOUT_MS: "2000",
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY: apiKey,
      WEBHOOK_SECRETS: world.webhookSecrets.join(","),
    });
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toMatch(
      /^Order Desk could not start: Could not reach Slack to check the bot token \(auth\.test: .*ECONNREFUSED.*\)\. Check that this host can reach slack\.com/,
    );
    expect(bad.stderr()).not.toContain("did not accept the bot token");
    expect(bad.stdout()).not.toMatch(/"level":60|"stack"/);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);
});
