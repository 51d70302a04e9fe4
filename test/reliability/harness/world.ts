/**
 * Everything Order Desk talks to, in the test process, on loopback: the offline world of tools/world.ts (the
 * supplier sandbox with webhooks pointed at Order Desk's fixed port, the fake Slack workspace, a fake Secrets
 * Manager holding the key; secrets generated per world, so a log scan knows exactly what must not appear) with
 * the reliability suite's people and channels, and a gateway in front of the sandbox that can revoke API keys
 * (a real supplier answers 401 for a rotated-out key; the sandbox's key ring is fixed at start).
 */
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { failureBody } from "../../../src/sandbox/envelope.ts";
import type { SandboxOptions } from "../../../src/sandbox/sandbox.ts";
import type { SocketModeOptions } from "../../../tools/fake-slack/index.ts";
import { type World as OfflineWorld, startWorld as startOfflineWorld } from "../../../tools/world.ts";

export { freePort, SECRET_ID } from "../../../tools/world.ts";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const CUSTOMER_CONFIG = fileURLToPath(new URL("../fixtures/order-desk.config.yml", import.meta.url));
export const AGENT = "U0AGENT01";
export const OUTSIDER = "U0OUTSIDE";
export const BUYER_GROUP = "S0BUYERS";
export const ADMIN_CHANNEL = "C0ITADMIN";
export const RESTRICTED_CHANNEL = "C0RESTRICT";
/** The "Approvals" and "Approvals B" profiles: their channels and approvers (each approves only their own). */
export const APPROVALS = { channel: "C0APPROVA", approver: "U0APPROVA" } as const;
export const APPROVALS_B = { channel: "C0APPROVB", approver: "U0APPROVB" } as const;
/** The channels of the "Reliability" profile (fixtures/order-desk.config.yml). */
export const CHANNELS = Array.from({ length: 40 }, (_, i) => `C0REL${String(i + 1).padStart(3, "0")}`);

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
  /** Create calls for this customerReference are answered 401 (every key refused) until `accept`. */
  refuseKeysFor(customerReference: string): void;
  accept(customerReference: string): void;
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
  const keyRefusals = new Set<string>();
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
    if (reference !== undefined && keyRefusals.has(reference)) {
      res.writeHead(401).end();
      return;
    }
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
    refuseKeysFor: (customerReference) => {
      keyRefusals.add(customerReference);
    },
    accept: (customerReference) => {
      keyRefusals.delete(customerReference);
    },
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

/** The offline world (tools/world.ts) with the key-revoking gateway between Order Desk and the sandbox. */
export interface World extends OfflineWorld {
  readonly gateway: SupplierGateway;
}

export async function startWorld(options: WorldOptions): Promise<World> {
  let gateway: SupplierGateway | undefined;
  const world = await startOfflineWorld({
    speed: options.speed,
    seed: options.seed,
    ...(options.extraKeys !== undefined && { extraKeys: options.extraKeys }),
    sandbox: { retryScheduleMs: retrySchedule(options.speed), deliveryTimeoutMs: 5_000, ...options.sandbox },
    inFrontOfSandbox: async (url) => {
      gateway = await startGateway(url);
      return gateway;
    },
    customerConfig: CUSTOMER_CONFIG,
    ...(options.slackMode && { slackMode: options.slackMode }),
    slack: {
      users: [
        { id: AGENT, name: "alice", realName: "Alice Agent" },
        { id: OUTSIDER, name: "oscar", realName: "Oscar Outsider" },
        { id: APPROVALS.approver, name: "ada", realName: "Ada Approver" },
        { id: APPROVALS_B.approver, name: "bob", realName: "Bob Approver" },
      ],
      channels: [
        ...CHANNELS.map((id) => ({ id, name: id.toLowerCase() })),
        { id: ADMIN_CHANNEL, name: "it-admin" },
        { id: RESTRICTED_CHANNEL, name: "restricted" },
        { id: APPROVALS.channel, name: "approvals" },
        { id: APPROVALS_B.channel, name: "approvals-b" },
      ],
      usergroups: [{ id: BUYER_GROUP, handle: "buyers", users: [] }],
      // Order Desk's own pacing keeps it under Slack's limit; the fake enforces it to prove that.
      channelPace: { perSecond: 1, burst: 4 },
      ...(options.socketMode && { socketMode: options.socketMode }),
    },
    env: {
      ORDER_DESK_ENV: "test",
      LOG_LEVEL: "info",
      SLACK_TIMEOUT_MS: "2000",
      SUPPLIER_TIMEOUT_MS: "3000",
      WEBHOOK_SETTLE_MS: "150",
      SHUTDOWN_GRACE_MS: "2000",
    },
  });
  return { ...world, gateway: gateway as SupplierGateway };
}
