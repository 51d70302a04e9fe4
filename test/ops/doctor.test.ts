import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/cli/doctor.ts";
import { createJobs, PermanentJobError, QUEUES } from "../../src/jobs/index.ts";
import type { CheckResult } from "../../src/ops/check.ts";
import type { DoctorOptions } from "../../src/ops/doctor.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import * as events from "../../src/store/repositories/events.ts";
import { insertUnreadable } from "../../src/store/repositories/unreadable.ts";
import { VERSION } from "../../src/version.ts";
import { type FakeSecretsManager, startFakeSecretsManager } from "../../tools/fake-secrets-manager.ts";
import { type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { defaultBackend, getTestStore, openTestStore, pgliteTemplate } from "../helpers/db.ts";

const BOT_TOKEN = `xoxb-doctor-${randomBytes(8).toString("hex")}`;
const APP_TOKEN = `xapp-doctor-${randomBytes(8).toString("hex")}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const STORED_WEBHOOK_SECRETS = [1, 2].map(() => `whsec_${randomBytes(32).toString("base64")}`);
const MALFORMED_WEBHOOK_SECRET = `whsec_${randomBytes(32).toString("base64")}`.slice(0, -1);
const DAY = 86_400_000;
const NOW = new Date("2026-06-01T12:00:00Z");

const EXAMPLE = readFileSync(new URL("../../examples/order-desk.config.yml", import.meta.url), "utf8");

const key = (environment: "live" | "test") => `ops_${environment}_${randomBytes(16).toString("hex")}`;
const TEST_KEY = key("test");
const LIVE_KEY = key("live");
const EXPIRED_KEY = key("test");
const EXPIRING_KEY = key("test");

let slack: FakeSlack;
let secrets: FakeSecretsManager;
let supplier: { url: string; requests: string[]; close(): Promise<void> };
let store: Store;
let workDir: string;
let customerFile: string;
/** Everything the doctor printed in this file, checked for secrets at the end. */
const printed: string[] = [];

function env(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    ORDER_DESK_ENV: "test",
    ORDER_DESK_CONFIG: customerFile,
    ORDER_DESK_DATA_DIR: join(workDir, "data"),
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: slack.apiUrl,
    SUPPLIER_BASE_URL: supplier.url,
    SUPPLIER_ENVIRONMENT: "test",
    SUPPLIER_API_KEY_SECRET_ID: "order-desk/supplier",
    AWS_REGION: secrets.region,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    WEBHOOK_SECRETS: WEBHOOK_SECRET,
    ...overrides,
  };
}

const CREDENTIALS = { accessKeyId: "AKIDDOCTOR", secretAccessKey: "doctor-test-secret" };

/**
 * Runs `order-desk doctor --json` with the test environment plus `envOverrides`. The file's shared store is
 * checked unless `store` says otherwise (`null`: open the configured one, as in production).
 */
async function doctor(
  envOverrides: Record<string, string | undefined> = {},
  options: Omit<DoctorOptions, "store"> & { store?: Store | null } = {},
): Promise<{ code: number; out: string; results: Map<string, CheckResult> }> {
  const { store: storeOption, ...rest } = options;
  let out = "";
  let err = "";
  const io = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
  };
  const chosen = storeOption === undefined ? store : storeOption;
  const code = await runDoctor(["--json"], env(envOverrides), io, {
    now: () => NOW,
    timeoutMs: 5_000,
    secretsClientOptions: { credentials: CREDENTIALS },
    ...(chosen ? { store: chosen } : {}),
    ...rest,
  });
  printed.push(out, err);
  const list = JSON.parse(out) as CheckResult[];
  return { code, out, results: new Map(list.map((r) => [r.name, r])) };
}

function statusOf(results: Map<string, CheckResult>): Record<string, string> {
  return Object.fromEntries([...results].map(([name, r]) => [name, r.status]));
}

async function startSupplier(): Promise<typeof supplier> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"success":false}');
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    requests,
    close: () => close(server),
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await listen(server);
  const { port } = server.address() as AddressInfo;
  await close(server);
  return port;
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "order-desk-doctor-"));
  customerFile = join(workDir, "order-desk.config.yml");
  writeFileSync(customerFile, EXAMPLE);
  [slack, secrets, supplier, store] = await Promise.all([
    startFakeSlack({ botToken: BOT_TOKEN }),
    startFakeSecretsManager(),
    startSupplier(),
    getTestStore(),
  ]);
  const secret = (value: string, expiresAt: Date) =>
    JSON.stringify({ apiKey: value, expiresAt: expiresAt.toISOString() });
  secrets.putSecretValue("order-desk/supplier", secret(TEST_KEY, new Date(NOW.getTime() + 200 * DAY)));
  secrets.putSecretValue("order-desk/live", secret(LIVE_KEY, new Date(NOW.getTime() + 200 * DAY)));
  secrets.putSecretValue("order-desk/expired", secret(EXPIRED_KEY, new Date(NOW.getTime() - 2 * DAY)));
  secrets.putSecretValue("order-desk/expiring", secret(EXPIRING_KEY, new Date(NOW.getTime() + 12 * DAY)));
  secrets.putSecretValue("order-desk/webhooks", JSON.stringify({ secrets: STORED_WEBHOOK_SECRETS }));
  secrets.putSecretValue("order-desk/webhooks-malformed", `${WEBHOOK_SECRET},${MALFORMED_WEBHOOK_SECRET}`);
  // The running app installs the job queue; so does this set-up.
  const jobs = createJobs({ store });
  await jobs.start();
  await jobs.stop({ graceMs: 0 });
});

afterAll(async () => {
  await Promise.all([slack?.close(), secrets?.close(), supplier?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

describe("order-desk doctor against a healthy set-up", () => {
  it("reports every check ok and exits 0", async () => {
    const { code, results } = await doctor();
    expect(statusOf(results)).toEqual({
      config: "ok",
      "customer-config": "ok",
      slack: "ok",
      "slack-socket": "ok",
      supplier: "ok",
      "api-key": "ok",
      "api-key-environment": "ok",
      "api-key-expiry": "ok",
      "webhook-secrets": "ok",
      database: "ok",
      "failed-jobs": "ok",
      "orphan-events": "ok",
      "unreadable-events": "ok",
    });
    expect(code).toBe(0);
    expect(results.get("slack")?.detail).toContain("T0");
    expect(results.get("api-key")?.detail).toContain("order-desk/supplier");
    expect(results.get("api-key-expiry")?.detail).toContain("in 200 days");
    expect(results.get("webhook-secrets")?.detail).toBe(
      "1 signing secret from WEBHOOK_SECRETS (environment)",
    );
  });

  it("reads the webhook secrets from Secrets Manager: names the secret and counts them, never shows one", async () => {
    const { code, results, out } = await doctor({
      WEBHOOK_SECRETS: undefined,
      WEBHOOK_SECRET_ID: "order-desk/webhooks",
    });
    expect(code).toBe(0);
    expect(results.get("webhook-secrets")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(
        /^read secret order-desk\/webhooks from Secrets Manager: 2 signing secrets \(a rotation: .*\), version [0-9a-f-]+$/,
      ),
    });
    for (const value of STORED_WEBHOOK_SECRETS) expect(out).not.toContain(value.slice(6));
  });

  it("only GETs the supplier's base URL: it never places an order", async () => {
    supplier.requests.length = 0;
    await doctor();
    expect(supplier.requests.length).toBeGreaterThan(0);
    expect(supplier.requests.every((r) => r === "GET /api/v1")).toBe(true);
  });

  it("prints the version, one aligned `status  name  detail` line per check and a summary", async () => {
    let out = "";
    const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => 0 } };
    const code = await runDoctor([], env(), io, {
      store,
      now: () => NOW,
      secretsClientOptions: { credentials: CREDENTIALS },
    });
    printed.push(out);
    expect(code).toBe(0);
    const [version, ...lines] = out.trimEnd().split("\n");
    expect(version).toBe(`order-desk ${VERSION} (Node.js ${process.version})`);
    expect(lines).toHaveLength(14);
    // Details start in one column: status (4) and the longest name (api-key-environment, 19), two spaces apart.
    const column = 4 + 2 + "api-key-environment".length + 2;
    for (const line of lines.slice(0, 13)) {
      expect(line.slice(0, column)).toMatch(/^(ok|note|warn|fail) +[a-z-]+ {2,}$/);
      expect(line[column]).not.toBe(" ");
    }
    expect(lines[0]).toMatch(/^ok {4}config {15}valid \(test; Slack socket mode/);
    expect(lines[13]).toBe("13 checks: 13 ok, 0 warn, 0 fail");
  });
});

describe("order-desk doctor against broken set-ups", () => {
  it("fails the Slack check with invalid_auth when the bot token is wrong", async () => {
    const { code, results } = await doctor({ SLACK_BOT_TOKEN: "xoxb-wrong" });
    expect(code).toBe(1);
    expect(results.get("slack")).toMatchObject({ status: "fail" });
    expect(results.get("slack")?.detail).toMatch(/^auth\.test: invalid_auth — the bot token is not valid/);
  });

  it("fails the Socket Mode check, saying what to do, when Slack refuses the app-level token", async () => {
    const { code, results } = await doctor({ SLACK_APP_TOKEN: "xapp-bad!token" });
    expect(code).toBe(1);
    expect(results.get("slack")?.status).toBe("ok");
    expect(results.get("slack-socket")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/^apps\.connections\.open: invalid_auth — SLACK_APP_TOKEN is not valid/),
    });
  });

  it("fails the Socket Mode check when Slack cannot open connections, and runs no such check in HTTP mode", async () => {
    slack.failNext("apps.connections.open", { httpStatus: 503 });
    const { results } = await doctor();
    expect(results.get("slack-socket")).toMatchObject({
      status: "fail",
      detail: "apps.connections.open: HTTP 503 Service Unavailable",
    });
    const http = await doctor({ SLACK_MODE: "http", SLACK_SIGNING_SECRET: "doctor-signing-secret" });
    expect(http.results.has("slack-socket")).toBe(false);
  });

  it("says SLACK_API_URL must end in /api/ when auth.test answers 404", async () => {
    const base = slack.apiUrl.replace(/api\/$/, "");
    const { code, results } = await doctor({ SLACK_API_URL: base });
    expect(code).toBe(1);
    expect(results.get("slack")?.detail).toBe(
      `auth.test: SLACK_API_URL (${base}) answered 404: it must be the Web API's base URL and end in /api/, for example ${base}api/`,
    );
  });

  it("fails the supplier check when nothing answers at the base URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/api`;
    const { code, results } = await doctor({ SUPPLIER_BASE_URL: url });
    expect(code).toBe(1);
    expect(results.get("supplier")).toEqual({
      name: "supplier",
      status: "fail",
      detail: `cannot reach ${url}: nothing listens there (ECONNREFUSED). Check SUPPLIER_BASE_URL and the network path.`,
    });
  });

  it("never shows a user name or password written into SUPPLIER_BASE_URL, reachable or not", async () => {
    const password = "Sup3r-s3cret-pw";
    const withCredentials = (url: string) => url.replace("http://", `http://odbasic:${password}@`);
    const reachable = await doctor({
      SUPPLIER_BASE_URL: withCredentials(supplier.url),
      SUPPLIER_API_KEY_SECRET_ID: "order-desk/live",
    });
    const shown = supplier.url.replace("http://", "http://***@");
    expect(reachable.results.get("supplier")?.detail).toMatch(
      new RegExp(`^${shown.replace(/[.*]/g, "\\$&")} answered HTTP 404`),
    );
    expect(reachable.results.get("api-key-environment")?.detail).toContain(`(${shown})`);
    const down = `http://127.0.0.1:${await closedPort()}/api`;
    const unreachable = await doctor({ SUPPLIER_BASE_URL: withCredentials(down) });
    expect(unreachable.results.get("supplier")?.detail).toMatch(
      /^cannot reach http:\/\/\*\*\*@127\.0\.0\.1:/,
    );
    for (const out of [reachable.out, unreachable.out]) {
      expect(out).not.toContain(password);
      expect(out).not.toContain("odbasic");
    }
  });

  it("fails when the key is a live key and SUPPLIER_ENVIRONMENT is test", async () => {
    const { code, results } = await doctor({ SUPPLIER_API_KEY_SECRET_ID: "order-desk/live" });
    expect(code).toBe(1);
    expect(results.get("api-key")?.status).toBe("ok");
    expect(results.get("api-key-environment")?.status).toBe("fail");
    expect(results.get("api-key-environment")?.detail).toMatch(
      /^ops_live_…[0-9a-f]{4} is a live key but SUPPLIER_ENVIRONMENT=test/,
    );
  });

  it("fails when the secret does not exist, and says the key checks were not run", async () => {
    const { code, results } = await doctor({ SUPPLIER_API_KEY_SECRET_ID: "order-desk/missing" });
    expect(code).toBe(1);
    expect(results.get("api-key")?.status).toBe("fail");
    expect(results.get("api-key")?.detail).toContain("Secret order-desk/missing was not found");
    expect(results.get("api-key-environment")).toMatchObject({
      status: "warn",
      detail: "not checked: the API key could not be read",
    });
    expect(results.get("api-key-expiry")?.status).toBe("warn");
  });

  it("fails on an expired key and warns on one expiring within 30 days", async () => {
    const expired = await doctor({ SUPPLIER_API_KEY_SECRET_ID: "order-desk/expired" });
    expect(expired.code).toBe(1);
    expect(expired.results.get("api-key-expiry")?.status).toBe("fail");
    expect(expired.results.get("api-key-expiry")?.detail).toMatch(/expired on .*2 days ago.*401/);

    const expiring = await doctor({ SUPPLIER_API_KEY_SECRET_ID: "order-desk/expiring" });
    expect(expiring.code).toBe(0);
    expect(expiring.results.get("api-key-expiry")?.status).toBe("warn");
    expect(expiring.results.get("api-key-expiry")?.detail).toContain("in 12 days");
  });

  it("fails the webhook-secrets check when the secret is missing or holds a malformed value", async () => {
    const missing = await doctor({ WEBHOOK_SECRETS: undefined, WEBHOOK_SECRET_ID: "order-desk/no-webhooks" });
    expect(missing.code).toBe(1);
    expect(missing.results.get("webhook-secrets")?.status).toBe("fail");
    expect(missing.results.get("webhook-secrets")?.detail).toContain(
      "Secret order-desk/no-webhooks was not found",
    );
    // The API key is another secret: still read.
    expect(missing.results.get("api-key")?.status).toBe("ok");

    const malformed = await doctor({
      WEBHOOK_SECRETS: undefined,
      WEBHOOK_SECRET_ID: "order-desk/webhooks-malformed",
    });
    expect(malformed.code).toBe(1);
    expect(malformed.results.get("webhook-secrets")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^Secret order-desk\/webhooks-malformed holds 1 of 2 value\(s\) that are not whsec_<base64>/,
      ),
    });
    expect(malformed.out).not.toContain(MALFORMED_WEBHOOK_SECRET.slice(6, 30));
  });

  it("notes, without failing, a database without migrations: a start (or order-desk migrate) applies them", async () => {
    const empty =
      defaultBackend() === "postgres"
        ? await openTestStore("postgres", { migrate: false })
        : await openStore({ dataDir: "memory://", migrate: false });
    try {
      const { code, results } = await doctor({}, { store: empty });
      expect(code).toBe(0);
      expect(results.get("database")?.status).toBe("note");
      expect(results.get("database")?.detail).toMatch(
        /^an empty database: Order Desk applies its \d+ migrations on its first start \(or run `order-desk migrate`\)/,
      );
      expect(results.get("failed-jobs")).toMatchObject({
        status: "note",
        detail: "not checked: the database is not created or migrated yet",
      });
    } finally {
      await empty.close();
    }
  });

  it("notes, without failing or creating one, that the embedded store does not exist yet", async () => {
    const dataDir = join(workDir, "no-store-here");
    const { code, results } = await doctor({ ORDER_DESK_DATA_DIR: dataDir }, { store: null });
    expect(code).toBe(0);
    expect(results.get("database")).toMatchObject({ status: "note" });
    expect(results.get("database")?.detail).toMatch(
      /^no embedded store in .*no-store-here yet: Order Desk creates it on its first start/,
    );
    expect(results.get("orphan-events")?.status).toBe("note");
    expect(existsSync(dataDir)).toBe(false);
  });

  it("fails fast when PostgreSQL is unreachable", async () => {
    const url = `postgres://order_desk:hunter2-db-password@127.0.0.1:${await closedPort()}/orders`;
    const { code, results, out } = await doctor({ DATABASE_URL: url }, { store: null });
    expect(code).toBe(1);
    expect(results.get("database")?.detail).toMatch(
      /^cannot connect to PostgreSQL at 127\.0\.0\.1:\d+\/orders/,
    );
    expect(out).not.toContain("hunter2-db-password");
  });

  it("lists every configuration problem and stops there", async () => {
    const { code, results } = await doctor({ SLACK_BOT_TOKEN: undefined, SUPPLIER_BASE_URL: "ftp://x" });
    expect(code).toBe(1);
    expect([...results.keys()]).toEqual(["config", "customer-config"]);
    expect(results.get("config")?.detail).toMatch(
      /^2 problems: .*SUPPLIER_BASE_URL: must be an http\(s\) URL/,
    );
    expect(results.get("config")?.detail).toContain("SLACK_BOT_TOKEN: required");
  });

  it("fails a customer file that is missing, or lists every problem in it", async () => {
    const missing = await doctor({ ORDER_DESK_CONFIG: join(workDir, "nope.yml") });
    expect(missing.code).toBe(1);
    expect(missing.results.get("customer-config")?.detail).toMatch(
      /nope\.yml: 1 problem: the file does not exist/,
    );

    const broken = join(workDir, "broken.yml");
    writeFileSync(
      broken,
      EXAMPLE.replace("adminChannel: C0ITADMIN", "adminChannel: it-admin\ncatalogue: []"),
    );
    const { code, results } = await doctor({ ORDER_DESK_CONFIG: broken });
    expect(code).toBe(1);
    expect(results.get("customer-config")?.detail).toMatch(
      /broken\.yml: 2 problems: .*adminChannel: must be a Slack channel id/,
    );
    expect(results.get("customer-config")?.detail).toContain('unknown key(s) "catalogue"');
  });

  it("fails a profile that orders from the other supplier environment", async () => {
    const file = join(workDir, "live-profile.yml");
    writeFileSync(
      file,
      EXAMPLE.replace("supplier: { environment: test }", "supplier: { environment: live }"),
    );
    const { code, results } = await doctor({ ORDER_DESK_CONFIG: file });
    expect(code).toBe(1);
    expect(results.get("customer-config")?.detail).toMatch(
      /profile "Acme EU" \(live\) is not for SUPPLIER_ENVIRONMENT=test, so its orders are refused/,
    );
  });

  it("checks that approver groups exist and have members, when a profile names some", async () => {
    const withGroups = (groups: string) =>
      EXAMPLE.replace(
        "allowWorkflows: true",
        `allowWorkflows: true\n    approval: { approvers: [U0MANAGER], approverGroups: [${groups}] }`,
      );
    const file = join(workDir, "approvers.yml");
    writeFileSync(file, withGroups("S0NOSUCH"));
    const missing = await doctor({ ORDER_DESK_CONFIG: file });
    expect(missing.code).toBe(1);
    expect(missing.results.get("approver-groups")).toMatchObject({ status: "fail" });
    expect(missing.results.get("approver-groups")?.detail).toMatch(/no such user group.*S0NOSUCH.*"Acme EU"/);

    slack.addUsergroup({ id: "S0APPROVE", handle: "approvers", users: ["U0MANAGER"] });
    writeFileSync(file, withGroups("S0APPROVE"));
    const found = await doctor({ ORDER_DESK_CONFIG: file });
    expect(found.results.get("approver-groups")).toMatchObject({
      status: "ok",
      detail: "1 approver group(s) found, 1 member(s) in all",
    });
  });

  it("checks each profile's own secret as well as the deployment's", async () => {
    const file = join(workDir, "own-secret.yml");
    writeFileSync(
      file,
      EXAMPLE.replace(
        "# apiKeySecretId: order-desk/supplier-api-key-eu",
        "apiKeySecretId: order-desk/expired",
      ),
    );
    const { code, results } = await doctor({ ORDER_DESK_CONFIG: file });
    expect(code).toBe(1);
    expect(results.get("api-key-expiry")?.status).toBe("ok");
    expect(results.get("api-key[order-desk/expired]")?.status).toBe("ok");
    expect(results.get("api-key-environment[order-desk/expired]")?.status).toBe("ok");
    expect(results.get("api-key-expiry[order-desk/expired]")?.status).toBe("fail");
  });

  it("gives up on a dependency that never answers at the deadline, and does not hang", async () => {
    const hanging = createServer(() => {});
    await listen(hanging);
    try {
      const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/api/`;
      const started = Date.now();
      const { code, results } = await doctor(
        { SLACK_API_URL: url, SUPPLIER_BASE_URL: url },
        { timeoutMs: 300 },
      );
      // The dependencies never answer: a generous bound shows doctor stopped waiting on a busy machine too.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(code).toBe(1);
      expect(results.get("slack")?.status).toBe("fail");
      expect(results.get("supplier")?.status).toBe("fail");
      expect(results.get("supplier")?.detail).toMatch(/no answer|cannot reach/);
    } finally {
      await close(hanging);
    }
  });
});

describe("order-desk doctor on work left in the database", () => {
  it("warns with the number of failed jobs, orphan events and unreadable deliveries, and still exits 0", async () => {
    const own = await openTestStore();
    const jobs = createJobs({ store: own, pollIntervalMs: 50 });
    try {
      await jobs.start();
      let failed!: () => void;
      const done = new Promise<void>((resolve) => {
        failed = resolve;
      });
      jobs.work(QUEUES.postUpdate, async () => {
        setImmediate(failed);
        throw new PermanentJobError("the Slack channel was archived");
      });
      await jobs.send(QUEUES.postUpdate, { orderId: "ord_1", eventId: "evt_1" });
      await done;
      await expect.poll(async () => (await jobs.stats())["post-update"].failed, { timeout: 5_000 }).toBe(1);
      await jobs.stop({ graceMs: 1_000 });

      await events.insertEventIfNew(own, {
        id: "evt_orphan_1",
        correlationId: "7f9c2b1e-0000-4000-8000-000000000001",
        type: "order.status_changed",
        occurredAt: new Date(),
        payload: { id: "evt_orphan_1" },
      });
      await insertUnreadable(own, {
        id: "sha256:00",
        delivery: { scheme: "standard-webhooks" },
        body: Buffer.from('{"eventType":"X"}'),
        reason: "no value at `id` (supplierEvents.fields.id): every event needs an id",
        field: "supplierEvents.fields.id",
        shapeKey: "shape1",
        shape: { fields: [{ path: "eventType", type: "string" }], more: 0 },
      });
      // Received an hour ago: far past ORPHAN_AFTER_MS.
      const { code, results } = await doctor({}, { store: own, now: () => new Date(Date.now() + 3_600_000) });
      expect(code).toBe(0);
      expect(results.get("failed-jobs")).toMatchObject({ status: "warn" });
      expect(results.get("failed-jobs")?.detail).toMatch(/^1 failed job \(post-update 1\)/);
      expect(results.get("orphan-events")?.status).toBe("warn");
      expect(results.get("orphan-events")?.detail).toMatch(
        /^1 event without a known order for more than 15 min .*7f9c2b1e-0000-4000-8000-000000000001/,
      );
      expect(results.get("unreadable-events")).toMatchObject({ status: "warn" });
      expect(results.get("unreadable-events")?.detail).toMatch(
        /^1 signed delivery since .* could not be read as events \(1 shape; the first: no value at `id`.*Reprocess/,
      );
    } finally {
      await jobs.stop({ graceMs: 0 });
      await own.close();
    }
  });
});

describe("what the doctor prints", () => {
  it("never contains a token, an API key or a signing secret", () => {
    const all = printed.join("\n");
    expect(all.length).toBeGreaterThan(1000);
    for (const secret of [
      BOT_TOKEN,
      APP_TOKEN,
      WEBHOOK_SECRET,
      ...STORED_WEBHOOK_SECRETS,
      MALFORMED_WEBHOOK_SECRET,
      TEST_KEY,
      LIVE_KEY,
      EXPIRED_KEY,
      EXPIRING_KEY,
    ]) {
      expect(all).not.toContain(secret);
      expect(all).not.toContain(secret.slice(-12));
    }
  });
});

describe("the embedded store on disk", () => {
  it("is opened from ORDER_DESK_DATA_DIR, checked, and released for Order Desk to start", async () => {
    const dataDir = join(workDir, "on-disk");
    const seeded = await openStore({ dataDir, pgliteTemplate: await pgliteTemplate() });
    await seeded.close();
    const { results } = await doctor({ ORDER_DESK_DATA_DIR: dataDir }, { store: null });
    expect(results.get("database")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/^(\d+) of \1 migrations applied \(latest \d+_\w+\.sql\)$/),
    });
    expect(results.get("orphan-events")?.status).toBe("ok");
    expect(existsSync(join(dataDir, "order-desk.lock"))).toBe(false);
  });

  it("warns that it was not checked instead of failing", async () => {
    const dataDir = join(workDir, "held");
    mkdirSync(join(dataDir, "pgdata"), { recursive: true });
    writeFileSync(
      join(dataDir, "order-desk.lock"),
      // The parent process (vitest's) stands in for a running Order Desk: alive, and not this process.
      JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: NOW.toISOString() }),
    );
    const { results } = await doctor({ ORDER_DESK_DATA_DIR: dataDir }, { store: null });
    expect(results.get("database")?.status).toBe("warn");
    expect(results.get("database")?.detail).toMatch(/in use by Order Desk \(process \d+/);
    expect(results.get("failed-jobs")?.detail).toBe("not checked: no database");
  });
});
