/**
 * The offline world Order Desk runs in, started once for the demo, the tests and the reliability suite: the
 * supplier sandbox (its webhooks pointed at Order Desk's port, chosen up front), a fake Secrets Manager holding
 * the supplier API key, and a fake Slack workspace, all on loopback. Order Desk itself joins either as a child
 * process (`order-desk start` with `env()`) or in this process (`startDesk()`), always in Slack's HTTP mode so
 * that `requests` and `user()` can deliver signed Slack requests to it. Tokens and secrets are generated per
 * world unless given, so a log scan knows exactly what must not appear.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { OrderDesk } from "../src/main.ts";
import type { SandboxDialect } from "../src/sandbox/dialect.ts";
import { generateTestKey } from "../src/sandbox/keys.ts";
import { type SandboxHandle, type SandboxOptions, startSandbox } from "../src/sandbox/sandbox.ts";
import { type FakeSecretsManager, startFakeSecretsManager } from "./fake-secrets-manager.ts";
import { type FakeSlack, type FakeSlackOptions, SlackUser, startFakeSlack } from "./fake-slack/index.ts";
import { fakeSlackToken } from "./fake-tokens.ts";
import { freePort } from "./free-port.ts";
import { createSlackRequests, type SlackRequests } from "./slack-requests.ts";
import { type WorldClock, worldClock } from "./world-clock.ts";

export { freePort };

export const EXAMPLE_CUSTOMER_CONFIG = fileURLToPath(
  new URL("../examples/order-desk.config.yml", import.meta.url),
);
/** The shipped `supplierEvents` block that maps the sandbox's alt dialect. */
export const ALT_DIALECT_SUPPLIER_EVENTS = fileURLToPath(
  new URL("../examples/supplier-events.alt.yml", import.meta.url),
);
/** Where the world's Secrets Manager holds the supplier API key (`SUPPLIER_API_KEY_SECRET_ID`). */
export const SECRET_ID = "order-desk/supplier-api-key";
/** Order Desk's Slack events path in HTTP mode (src/slack/app.ts; not imported, to keep Bolt out of here). */
const SLACK_EVENTS_PATH = "/slack/events";

export interface WorldOptions {
  /** Sandbox time compression (a one-parcel order's fulfilment takes ~38 min / speed). Default 1. */
  speed?: number;
  /** Makes the sandbox's plans and faults repeatable. */
  seed?: string;
  /** More sandbox options (retry schedule, delivery timeout, faults, logger). */
  sandbox?: Partial<SandboxOptions>;
  /**
   * Something in front of the sandbox that Order Desk calls instead (a gateway that revokes keys, a proxy that
   * injects faults); closed with the world.
   */
  inFrontOfSandbox?: (sandboxUrl: string) => Promise<{ url: string; close(): Promise<void> }>;
  /** API keys the sandbox accepts besides the one in Secrets Manager (for a rotation during a run). */
  extraKeys?: number;
  /** Store the key as `{"apiKey","expiresAt"}` expiring this many days from now; default: the plain key. */
  keyExpiresInDays?: number;
  /** The Slack workspace: people, channels, user groups, pacing. */
  slack?: Omit<FakeSlackOptions, "botToken">;
  botToken?: string;
  signingSecret?: string;
  /** How Order Desk talks to Slack in this world: `http` (signed requests to `/slack/events`, the default) or `socket`. */
  slackMode?: "http" | "socket";
  /** The customer file (default: examples/order-desk.config.yml). */
  customerConfig?: string;
  /**
   * What the sandbox's webhooks look like and how they are signed (docs/sandbox.md, Dialects). Default `default`.
   * With `alt`, Order Desk's customer file is `customerConfig` with `supplierEvents: { file: <the shipped
   * example mapping> }` added (written to a temporary directory), and the webhook secret is one for its HMAC.
   */
  dialect?: SandboxDialect;
  /**
   * The `supplierEvents` file Order Desk's customer file names, instead of the dialect's (with `alt`, the shipped
   * example; with `default`, none): e.g. a mapping that does not fit, to see what admins see.
   */
  supplierEvents?: string;
  /** Variables for every Order Desk started in this world; they win over the world's own. */
  env?: Record<string, string>;
  /**
   * Start the world's clock at this instant (ms since the epoch, not in the future; world-clock.ts): the sandbox's
   * fulfilment and every Order Desk of `startDesk()` run on it, so dates come out the same whatever the hour.
   * Default: the real clock.
   */
  startAt?: number;
}

export interface StartDeskOptions {
  /** Order Desk's logger (default: one built from `LOG_LEVEL`, on stdout). */
  logger?: Logger;
  /** More variables for this start (e.g. the store); they win over the world's. */
  env?: Record<string, string>;
  /** Order Desk's clock (default the world's). */
  now?: () => Date;
}

export interface World {
  readonly port: number;
  /** Order Desk's URL in this world: `http://127.0.0.1:<port>`. */
  readonly appUrl: string;
  readonly sandbox: SandboxHandle;
  /** The supplier URL Order Desk is given: the sandbox's, or what is in front of it. */
  readonly supplierUrl: string;
  readonly fake: FakeSlack;
  readonly secretsManager: FakeSecretsManager;
  /** keys[0] is in Secrets Manager; the sandbox accepts all of them. */
  readonly keys: string[];
  readonly botToken: string;
  readonly signingSecret: string;
  readonly slackMode: "http" | "socket";
  /** The app-level token (xapp-…) the fake accepts for Socket Mode. */
  readonly appToken: string;
  readonly webhookSecrets: string[];
  readonly dialect: SandboxDialect;
  /** The world's time: the sandbox's and Order Desk's (`startAt`, or the real clock). */
  now(): Date;
  /** The customer file Order Desk is given (`ORDER_DESK_CONFIG`). */
  readonly customerConfig: string;
  /**
   * `base` (default: the world's `customerConfig` option, else the example) with `supplierEvents: { file }` added,
   * written to the world's temporary directory: a customer file for a restart with another mapping.
   */
  customerConfigWith(supplierEventsFile: string, base?: string): Promise<string>;
  /** Signed Slack requests to Order Desk's `/slack/events`. */
  readonly requests: SlackRequests;
  /**
   * The environment of `order-desk start` in this world (Slack in HTTP mode, the key from Secrets Manager).
   * The store is the embedded one in memory unless `extra` (or the world's `env`) names one.
   */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Order Desk in this process (the composition root `order-desk start` uses); stopped by `close()`. */
  startDesk(options?: StartDeskOptions): Promise<OrderDesk>;
  /** A person in the workspace who runs commands, shortcuts and modals against Order Desk. */
  user(userId: string, timeoutMs?: number): SlackUser;
  /** Every secret of this world, for a log scan (workflow tokens handed out so far included). */
  secrets(): string[];
  close(): Promise<void>;
}

/** Credentials the fake Secrets Manager takes (it checks none; the SDK wants some). */
const AWS_CREDENTIALS = { accessKeyId: "offline-world", secretAccessKey: "offline-world-not-a-secret" };

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const keys = Array.from({ length: 1 + (options.extraKeys ?? 0) }, () => generateTestKey());
  const botToken = options.botToken ?? `xoxb-${randomBytes(12).toString("hex")}`;
  const signingSecret = options.signingSecret ?? randomBytes(16).toString("hex");
  const appToken = fakeSlackToken("xapp", randomBytes(12).toString("hex"));
  const slackMode = options.slackMode ?? "http";
  const closers: Array<() => Promise<unknown>> = [];
  const desks: OrderDesk[] = [];
  let closed = false;
  const dialect = options.dialect ?? options.sandbox?.dialect ?? "default";
  const clock: WorldClock | null = options.startAt === undefined ? null : worldClock(options.startAt);
  let tempDir: string | undefined;
  const customerConfigWith = async (supplierEventsFile: string, base?: string): Promise<string> => {
    if (tempDir === undefined) {
      tempDir = await mkdtemp(join(tmpdir(), "order-desk-world-"));
      const dir = tempDir;
      closers.push(() => rm(dir, { recursive: true, force: true }));
    }
    const file = join(tempDir, `order-desk.config.${desks.length}.${randomBytes(3).toString("hex")}.yml`);
    await writeFile(
      file,
      await withSupplierEvents(base ?? options.customerConfig ?? EXAMPLE_CUSTOMER_CONFIG, supplierEventsFile),
    );
    return file;
  };

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const desk of desks.reverse()) await desk.stop().catch(() => {});
    await Promise.allSettled(closers.map((c) => c()));
  }

  try {
    const sandbox = await startSandbox({
      apiKeys: keys,
      webhookUrl: `${appUrl}/webhooks/supplier`,
      speed: options.speed ?? 1,
      ...(options.seed !== undefined && { seed: options.seed }),
      ...(clock && { clock: clock.sandbox }),
      ...options.sandbox,
      // Without a webhookSecret the sandbox generates one in the dialect's form (whsec_… or 64 hex characters).
      dialect,
    });
    closers.push(() => sandbox.close());
    const webhookSecrets = [...sandbox.webhookSecrets];
    let supplierUrl = sandbox.url;
    if (options.inFrontOfSandbox) {
      const front = await options.inFrontOfSandbox(sandbox.url);
      closers.push(() => front.close());
      supplierUrl = front.url;
    }
    const supplierEvents =
      options.supplierEvents ?? (dialect === "alt" ? ALT_DIALECT_SUPPLIER_EVENTS : undefined);
    const customerConfig =
      supplierEvents === undefined
        ? (options.customerConfig ?? EXAMPLE_CUSTOMER_CONFIG)
        : await customerConfigWith(supplierEvents);
    const secretsManager = await startFakeSecretsManager({ port: 0 });
    closers.push(() => secretsManager.close());
    const apiKey = keys[0] as string;
    secretsManager.putSecretValue(
      SECRET_ID,
      options.keyExpiresInDays === undefined
        ? apiKey
        : JSON.stringify({
            apiKey,
            expiresAt: new Date(Date.now() + options.keyExpiresInDays * 86_400_000).toISOString(),
          }),
    );
    const fake = await startFakeSlack({
      ...options.slack,
      botToken,
      socketMode: { ...options.slack?.socketMode, appToken },
    });
    closers.push(() => fake.close());
    const requests = createSlackRequests({
      url: `${appUrl}${SLACK_EVENTS_PATH}`,
      signingSecret,
      teamId: fake.teamId,
      appId: fake.appId,
    });

    const env = (extra: Record<string, string> = {}): Record<string, string> => {
      const chosen = { ...options.env, ...extra };
      const store = "DATABASE_URL" in chosen || "ORDER_DESK_DATA_DIR" in chosen;
      return {
        ORDER_DESK_CONFIG: customerConfig,
        ...(store ? {} : { ORDER_DESK_DATA_DIR: "memory://" }),
        HTTP_HOST: "127.0.0.1",
        HTTP_PORT: String(port),
        // Several worlds at once (tests, the reliability suite): each its own free port for the operations listener.
        OPS_HTTP_PORT: "0",
        ...(slackMode === "socket"
          ? { SLACK_MODE: "socket", SLACK_APP_TOKEN: appToken }
          : { SLACK_MODE: "http", SLACK_SIGNING_SECRET: signingSecret }),
        SLACK_BOT_TOKEN: botToken,
        SLACK_API_URL: fake.apiUrl,
        SUPPLIER_BASE_URL: supplierUrl,
        SUPPLIER_ENVIRONMENT: "test",
        SUPPLIER_API_KEY_SECRET_ID: SECRET_ID,
        AWS_REGION: secretsManager.region,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
        AWS_ACCESS_KEY_ID: AWS_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: AWS_CREDENTIALS.secretAccessKey,
        WEBHOOK_SECRETS: webhookSecrets.join(","),
        ...chosen,
      };
    };

    return {
      port,
      appUrl,
      sandbox,
      supplierUrl,
      fake,
      secretsManager,
      keys,
      botToken,
      signingSecret,
      slackMode,
      appToken,
      webhookSecrets,
      dialect,
      now: () => clock?.now() ?? new Date(),
      customerConfig,
      customerConfigWith,
      requests,
      env,
      async startDesk(start = {}) {
        // Loaded on first use: a world for a child process does not pay for the whole app in this one.
        const [{ loadConfig }, { startOrderDesk }] = await Promise.all([
          import("../src/config.ts"),
          import("../src/main.ts"),
        ]);
        const vars = env(start.env);
        const now = start.now ?? clock?.now;
        const desk = await startOrderDesk(loadConfig(vars), {
          ...(start.logger && { logger: start.logger }),
          ...(now && { now }),
          defaultMetrics: false,
          secretsCredentials: {
            accessKeyId: vars.AWS_ACCESS_KEY_ID ?? AWS_CREDENTIALS.accessKeyId,
            secretAccessKey: vars.AWS_SECRET_ACCESS_KEY ?? AWS_CREDENTIALS.secretAccessKey,
          },
        });
        desks.push(desk);
        return desk;
      },
      user: (userId, timeoutMs = 10_000) => new SlackUser({ fake, requests, userId, timeoutMs }),
      secrets: () => [
        ...keys,
        botToken,
        signingSecret,
        appToken,
        ...webhookSecrets,
        ...[...fake.workspace.executions.values()].map((e) => e.token),
      ],
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The customer file at `base` with `supplierEvents: { file: <absolute path> }` appended. The base must not have a
 * `supplierEvents` block of its own: two would be a YAML error, and which mapping is in force would be unclear.
 */
export async function withSupplierEvents(base: string, supplierEventsFile: string): Promise<string> {
  const text = await readFile(base, "utf8");
  if (/^supplierEvents\s*:/m.test(text)) {
    throw new Error(`${base} has a supplierEvents block already; give a customer file without one`);
  }
  return `${text.endsWith("\n") ? text : `${text}\n`}\nsupplierEvents:\n  file: ${JSON.stringify(supplierEventsFile)}\n`;
}
