/**
 * Everything Order Desk talks to, in the test process, on loopback: the supplier sandbox (webhooks pointed at
 * Order Desk's fixed port), a gateway in front of it that can revoke API keys (a real supplier answers 401 for a
 * rotated-out key; the sandbox's key ring is fixed at start), the fake Slack workspace and a fake Secrets
 * Manager holding the key. Secrets are generated per world, so a log scan knows exactly what must not appear.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer } from "node:net";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import {
  type FakeSecretsManager,
  startFakeSecretsManager,
} from "../../../src/devtools/fake-secrets-manager.ts";
import {
  type FakeSlack,
  type SocketModeOptions,
  startFakeSlack,
} from "../../../src/devtools/fake-slack/index.ts";
import { failureBody } from "../../../src/sandbox/envelope.ts";
import { generateTestKey } from "../../../src/sandbox/keys.ts";
import { type SandboxHandle, type SandboxOptions, startSandbox } from "../../../src/sandbox/sandbox.ts";
import { generateWebhookSecret } from "../../../src/webhooks/signature.ts";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const CUSTOMER_CONFIG = fileURLToPath(new URL("../fixtures/order-desk.config.yml", import.meta.url));
export const SECRET_ID = "order-desk/supplier-api-key";
export const AGENT = "U0AGENT01";
export const OUTSIDER = "U0OUTSIDE";
export const BUYER_GROUP = "S0BUYERS";
export const ADMIN_CHANNEL = "C0ITADMIN";
export const RESTRICTED_CHANNEL = "C0RESTRICT";
/** The channels of the "Reliability" profile (fixtures/order-desk.config.yml). */
export const CHANNELS = Array.from({ length: 40 }, (_, i) => `C0REL${String(i + 1).padStart(3, "0")}`);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A webhook retry schedule in real milliseconds (the sandbox divides its schedule by `speed`): quick first
 * retries, then every `everyMs` for `attempts` attempts, so an event outlives the longest outage a test makes.
 */
export function retrySchedule(speed: number, everyMs = 1_000, attempts = 90): number[] {
  const real = [0, 200, 400, 800, ...Array.from({ length: attempts }, () => everyMs)];
  return real.map((ms) => ms * speed);
}

export interface SupplierGateway {
  readonly url: string;
  /** Keys answered 401 from now on, as the supplier does once a rotated-out key is revoked. */
  revoke(key: string): void;
  /** The next create call for this customerReference is refused with VALIDATION_FAILED (a bad zip code). */
  refuseOnce(customerReference: string): void;
  /** Create calls seen, by the last 4 characters of the key used. */
  readonly callsByKeySuffix: Map<string, number>;
  /** When the gateway last let a create call for this customerReference through to the sandbox (ms epoch). */
  readonly admittedAt: Map<string, number>;
  close(): Promise<void>;
}

function customerReferenceOf(chunks: Buffer[]): string | undefined {
  try {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { customerReference?: unknown };
    return typeof body.customerReference === "string" ? body.customerReference : undefined;
  } catch {
    return undefined;
  }
}

/** A pass-through proxy to the sandbox that can revoke keys (status 401, empty body, like many gateways). */
async function startGateway(target: string): Promise<SupplierGateway> {
  const revoked = new Set<string>();
  const refusals = new Set<string>();
  const callsByKeySuffix = new Map<string, number>();
  const admittedAt = new Map<string, number>();
  const agent = new Agent({ connections: 64 });
  const server = createHttpServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      res.destroy();
      return;
    }
    const key = String(req.headers["x-api-key"] ?? "");
    const suffix = key.slice(-4);
    callsByKeySuffix.set(suffix, (callsByKeySuffix.get(suffix) ?? 0) + 1);
    if (revoked.has(key)) {
      res.writeHead(401).end();
      return;
    }
    const reference = req.url === "/orders/create" ? customerReferenceOf(chunks) : undefined;
    if (reference !== undefined && refusals.delete(reference)) {
      const meta = { timestamp: new Date().toISOString(), correlationId: randomUUID() };
      const details = { "Shipping.ZipCode": ["The zip code does not exist in the country given."] };
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(failureBody("VALIDATION_FAILED", "The order request is not valid.", meta, details));
      return;
    }
    if (reference !== undefined) admittedAt.set(reference, Date.now());
    try {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
          headers[name] = value;
      }
      const upstream = await request(`${target}${req.url ?? "/"}`, {
        method: (req.method ?? "GET") as "GET",
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        dispatcher: agent,
      });
      const body = Buffer.from(await upstream.body.arrayBuffer());
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(upstream.headers)) {
        if (typeof value === "string" && !["connection", "transfer-encoding", "keep-alive"].includes(name))
          out[name] = value;
      }
      res.writeHead(upstream.statusCode, out).end(body);
    } catch {
      // The sandbox dropped the connection (its resetConnections fault): drop ours too.
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    revoke: (key) => revoked.add(key),
    refuseOnce: (customerReference) => {
      refusals.add(customerReference);
    },
    callsByKeySuffix,
    admittedAt,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}

export interface WorldOptions {
  /** How Slack reaches Order Desk (default HTTP). */
  slackMode?: "http" | "socket";
  /** The fake's Socket Mode: how long Slack keeps a connection it asked to replace, its pings. */
  socketMode?: Omit<SocketModeOptions, "appToken">;
  /** Sandbox time compression (the fulfilment of a one-parcel order takes ~38 min / speed). */
  speed: number;
  seed: string;
  /** Extra API keys the sandbox accepts (for a rotation during the run). */
  extraKeys?: number;
  sandbox?: Partial<SandboxOptions>;
}

export interface World {
  readonly slackMode: "http" | "socket";
  readonly port: number;
  readonly appUrl: string;
  readonly sandbox: SandboxHandle;
  readonly gateway: SupplierGateway;
  readonly fake: FakeSlack;
  readonly secretsManager: FakeSecretsManager;
  /** keys[0] is in Secrets Manager at start; the others are accepted by the sandbox for rotations. */
  readonly keys: string[];
  readonly botToken: string;
  readonly signingSecret: string;
  /** The app-level token (xapp-…) the fake accepts for Socket Mode. */
  readonly appToken: string;
  readonly webhookSecrets: string[];
  /** The environment of `order-desk start` against this world (add the store variables). */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Every secret of this world, for the log scan (workflow tokens included). */
  secrets(): string[];
  close(): Promise<void>;
}

export async function startWorld(options: WorldOptions): Promise<World> {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const keys = Array.from({ length: 1 + (options.extraKeys ?? 0) }, () => generateTestKey());
  const webhookSecrets = [generateWebhookSecret()];
  const botToken = `xoxb-${randomBytes(12).toString("hex")}`;
  const signingSecret = randomBytes(16).toString("hex");
  const appToken = `xapp-1-A0ORDERDSK-1-${randomBytes(12).toString("hex")}`;
  const slackMode = options.slackMode ?? "http";
  const sandbox = await startSandbox({
    apiKeys: keys,
    webhookUrl: `${appUrl}/webhooks/supplier`,
    webhookSecret: webhookSecrets,
    speed: options.speed,
    seed: options.seed,
    retryScheduleMs: retrySchedule(options.speed),
    deliveryTimeoutMs: 5_000,
    ...options.sandbox,
  });
  const gateway = await startGateway(sandbox.url);
  const secretsManager = await startFakeSecretsManager({ port: 0 });
  secretsManager.putSecretValue(SECRET_ID, keys[0] as string);
  const fake = await startFakeSlack({
    botToken,
    users: [
      { id: AGENT, name: "alice", realName: "Alice Agent" },
      { id: OUTSIDER, name: "oscar", realName: "Oscar Outsider" },
    ],
    channels: [
      ...CHANNELS.map((id) => ({ id, name: id.toLowerCase() })),
      { id: ADMIN_CHANNEL, name: "it-admin" },
      { id: RESTRICTED_CHANNEL, name: "restricted" },
    ],
    usergroups: [{ id: BUYER_GROUP, handle: "buyers", users: [] }],
    // Order Desk's own pacing keeps it under Slack's limit; the fake enforces it to prove that.
    channelPace: { perSecond: 1, burst: 4 },
    socketMode: { ...options.socketMode, appToken },
  });
  let closed = false;
  return {
    slackMode,
    port,
    appUrl,
    sandbox,
    gateway,
    fake,
    secretsManager,
    keys,
    botToken,
    signingSecret,
    appToken,
    webhookSecrets,
    env: (extra = {}) => ({
      ORDER_DESK_ENV: "test",
      ORDER_DESK_CONFIG: CUSTOMER_CONFIG,
      HTTP_HOST: "127.0.0.1",
      HTTP_PORT: String(port),
      LOG_LEVEL: "info",
      ...(slackMode === "socket"
        ? { SLACK_MODE: "socket", SLACK_APP_TOKEN: appToken }
        : { SLACK_MODE: "http", SLACK_SIGNING_SECRET: signingSecret }),
      SLACK_BOT_TOKEN: botToken,
      SLACK_API_URL: fake.apiUrl,
      SLACK_TIMEOUT_MS: "2000",
      SUPPLIER_BASE_URL: gateway.url,
      SUPPLIER_ENVIRONMENT: "test",
      SUPPLIER_TIMEOUT_MS: "3000",
      SUPPLIER_API_KEY_SECRET_ID: SECRET_ID,
      AWS_REGION: secretsManager.region,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
      AWS_ACCESS_KEY_ID: "reliability",
      AWS_SECRET_ACCESS_KEY: "reliability-not-a-secret",
      WEBHOOK_SECRETS: webhookSecrets.join(","),
      WEBHOOK_SETTLE_MS: "150",
      SHUTDOWN_GRACE_MS: "2000",
      ...extra,
    }),
    secrets: () => [
      ...keys,
      botToken,
      signingSecret,
      appToken,
      ...webhookSecrets,
      ...[...fake.workspace.executions.values()].map((e) => e.token),
    ],
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([sandbox.close(), gateway.close(), secretsManager.close(), fake.close()]);
    },
  };
}
