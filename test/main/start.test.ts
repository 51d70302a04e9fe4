/**
 * `order-desk start` as an operator runs it: a real child process configured only through its environment,
 * talking to the supplier sandbox, the fake Slack and a local Secrets Manager over HTTP. It serves health,
 * readiness and metrics, takes an order from Slack to the supplier and back into the thread, logs JSON with
 * no secret in it, and stops cleanly on SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_DELIVERY } from "../../src/devtools/example-form.ts";
import { type FakeSecretsManager, startFakeSecretsManager } from "../../src/devtools/fake-secrets-manager.ts";
import { type FakeSlack, SlackUser, startFakeSlack } from "../../src/devtools/fake-slack/index.ts";
import { createSlackRequests } from "../../src/devtools/slack-requests.ts";
import { createSocketModeRequests } from "../../src/devtools/socket-mode-requests.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import { parsePrometheusText, sampleValue } from "../ops/prometheus.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BOT_TOKEN = "xoxb-start";
const SIGNING_SECRET = "start-test-signing-secret-abcdef";
const SECRET_ID = "order-desk/supplier-api-key";
const HELPDESK = "C0HELPDESK";
const AGENT = "U0AGENT01";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

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
  let sandbox: SandboxHandle;
  let fake: FakeSlack;
  let secrets: FakeSecretsManager;
  let app: Running;
  let url: string;
  let apiKey: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "order-desk-start-"));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    apiKey = generateTestKey();
    sandbox = await startSandbox({
      apiKeys: [apiKey],
      webhookUrl: `${url}/webhooks/supplier`,
      speed: 2000,
      seed: "start-test",
    });
    secrets = await startFakeSecretsManager({ port: 0 });
    secrets.putSecretValue(SECRET_ID, apiKey);
    fake = await startFakeSlack({
      botToken: BOT_TOKEN,
      users: [{ id: AGENT, name: "alice", realName: "Alice Agent" }],
      channels: [
        { id: HELPDESK, name: "helpdesk" },
        { id: "C0ITADMIN", name: "it-admin" },
      ],
    });
    app = startProcess({
      ORDER_DESK_CONFIG: join(ROOT, "examples/order-desk.config.yml"),
      ORDER_DESK_DATA_DIR: join(dir, "data"),
      HTTP_HOST: "127.0.0.1",
      HTTP_PORT: String(port),
      SLACK_MODE: "http",
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY_SECRET_ID: SECRET_ID,
      AWS_REGION: secrets.region,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
      WEBHOOK_SECRETS: sandbox.webhookSecrets.join(","),
      WEBHOOK_SETTLE_MS: "100",
      LOG_LEVEL: "info",
    });
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
    await sandbox?.close();
    await fake?.close();
    await secrets?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Alice orders a laptop for Nina with `/order TICKET` and the modal, over Slack's signed HTTP requests. */
  async function orderThroughSlack(ticket: string): Promise<void> {
    const requests = createSlackRequests({
      url: `${url}/slack/events`,
      signingSecret: SIGNING_SECRET,
      teamId: fake.teamId,
      appId: fake.appId,
    });
    const alice = new SlackUser({ fake, requests, userId: AGENT, timeoutMs: 10_000 });
    const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    const view = await alice.openedModal(triggerId);
    const submitted = await alice.submit(view.id, { profile: "Acme EU", ...EXAMPLE_DELIVERY });
    expect(submitted.outcome.outcome).toBe("closed");
  }

  it("answers /healthz and /readyz with what it checked", async () => {
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.stringify(await ready.json())).toMatch(/store/);
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

    const metrics = parsePrometheusText(await (await fetch(`${url}/metrics`)).text());
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
    expect(everything).toContain("Order Desk is running");
    for (const secret of [apiKey, BOT_TOKEN, SIGNING_SECRET, ...sandbox.webhookSecrets]) {
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

  it("refuses to start, saying why, when Slack does not accept the bot token", async () => {
    const bad = startProcess({
      ORDER_DESK_CONFIG: join(ROOT, "examples/order-desk.config.yml"),
      ORDER_DESK_DATA_DIR: join(dir, "bad-token"),
      HTTP_PORT: "0",
      SLACK_MODE: "http",
      SLACK_BOT_TOKEN: "xoxb-bogus",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY: apiKey,
      WEBHOOK_SECRETS: sandbox.webhookSecrets.join(","),
      LOG_LEVEL: "silent",
    });
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toMatch(/Slack did not accept the bot token \(auth.test: invalid_auth\)/);
    expect(bad.stderr()).not.toContain(apiKey);
  }, 60_000);
});

describe("order-desk start in Socket Mode", () => {
  let dir: string;
  let sandbox: SandboxHandle;
  let fake: FakeSlack;
  let app: Running;
  let url: string;
  const appToken = `xapp-1-A0ORDERDSK-1-${Date.now().toString(16)}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "order-desk-start-socket-"));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const apiKey = generateTestKey();
    sandbox = await startSandbox({
      apiKeys: [apiKey],
      webhookUrl: `${url}/webhooks/supplier`,
      speed: 2000,
      seed: "start-socket",
    });
    fake = await startFakeSlack({
      botToken: BOT_TOKEN,
      users: [{ id: AGENT, name: "alice", realName: "Alice Agent" }],
      channels: [
        { id: HELPDESK, name: "helpdesk" },
        { id: "C0ITADMIN", name: "it-admin" },
      ],
      socketMode: { appToken },
    });
    // Slack is down when Order Desk starts, until the test lets it answer.
    fake.failNext("apps.connections.open", { httpStatus: 503 }, 10_000);
    app = startProcess({
      ORDER_DESK_CONFIG: join(ROOT, "examples/order-desk.config.yml"),
      ORDER_DESK_DATA_DIR: join(dir, "data"),
      HTTP_HOST: "127.0.0.1",
      HTTP_PORT: String(port),
      SLACK_MODE: "socket",
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: appToken,
      SLACK_API_URL: fake.apiUrl,
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY: apiKey,
      WEBHOOK_SECRETS: sandbox.webhookSecrets.join(","),
      LOG_LEVEL: "info",
    });
  }, 90_000);

  afterAll(async () => {
    if (app && app.child.exitCode === null) app.child.kill("SIGKILL");
    await sandbox?.close();
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const readyz = async () => {
    const res = await fetch(`${url}/readyz`);
    return {
      status: res.status,
      body: (await res.json()) as { checks: Record<string, { ok: boolean; error?: string }> },
    };
  };

  it("runs while Slack refuses connections, reports not ready with the reason, and is ready once connected", async () => {
    const down = await waitFor(
      "/readyz to name Slack as the problem",
      async () => {
        const r = await readyz();
        return r.status === 503 && r.body.checks.slack?.ok === false ? r : undefined;
      },
      60_000,
    );
    expect(down.body.checks.slack?.error).toMatch(
      /^no Socket Mode connection to Slack .*apps\.connections\.open/,
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(app.child.exitCode).toBeNull();

    fake.clearFaults();
    await waitFor("/readyz 200", async () => ((await readyz()).status === 200 ? true : undefined), 60_000);
    expect(fake.socketMode.openConnections()).toHaveLength(1);
  }, 90_000);

  it("takes an order over the socket, and after the connection drops takes the next one", async () => {
    const requests = createSocketModeRequests({
      socketMode: fake.socketMode,
      teamId: fake.teamId,
      appId: fake.appId,
    });
    const alice = new SlackUser({ fake, requests, userId: AGENT, timeoutMs: 10_000 });
    const order = async (ticket: string) => {
      const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
      const view = await alice.openedModal(triggerId);
      const submitted = await alice.submit(view.id, { profile: "Acme EU", ...EXAMPLE_DELIVERY, ticket });
      expect(submitted.outcome.outcome).toBe("closed");
    };
    await order("SOCK-1");
    fake.socketMode.drop();
    await waitFor("a new connection", async () =>
      fake.socketMode.connections().length === 2 && fake.socketMode.openConnections().length === 1
        ? true
        : undefined,
    );
    await order("SOCK-2");
    await waitFor("both orders at the supplier", async () =>
      (await sandbox.orders()).filter((o) => /^SOCK-[12]$/.test(o.customerReference ?? "")).length === 2
        ? true
        : undefined,
    );
    const metrics = parsePrometheusText(await (await fetch(`${url}/metrics`)).text());
    expect(sampleValue(metrics, "order_desk_slack_socket_connections", {})).toBe(1);
    expect(
      sampleValue(metrics, "order_desk_slack_socket_reconnects_total", { reason: "connection_lost" }),
    ).toBe(1);
    expect(
      sampleValue(metrics, "order_desk_slack_socket_connect_failures_total", { error: "http_503" }),
    ).toBeGreaterThan(0);
  }, 60_000);

  it("stops on SIGTERM with exit 0, closing its connection, the app-level token in no log line", async () => {
    app.child.kill("SIGTERM");
    expect(await app.exited).toBe(0);
    expect(fake.socketMode.connections().every((c) => c.closedAt !== undefined)).toBe(true);
    const everything = app.stdout() + app.stderr();
    expect(everything).toMatch(/"msg":"Socket Mode connection to Slack lost: reconnecting"/);
    expect(everything).not.toContain(appToken);
    expect(everything).not.toContain(BOT_TOKEN);
  }, 30_000);
});
