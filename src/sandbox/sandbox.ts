/**
 * `startSandbox(options)`: the supplier sandbox assembled — keys, store, fulfilment scheduler, webhook deliverer
 * and the HTTP server — with a handle for tests (inspect orders, change faults at run time, close).
 */
import { randomInt } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, pino } from "pino";
import { type Clock, systemClock } from "./clock.ts";
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_RETRY_SCHEDULE_MS, WebhookDeliverer } from "./deliverer.ts";
import { resolveWebhookSecrets, type SandboxDialect } from "./dialect.ts";
import {
  type Faults,
  fulfilmentFaultOf,
  type LateDelivery,
  mergeFaults,
  NO_FAULTS,
  type Stall,
} from "./faults.ts";
import { type PlannedEvent, planFulfilment } from "./fulfilment.ts";
import { generateTestKey, KeyRing, parseSandboxKey, type SandboxKey } from "./keys.ts";
import { createRandom } from "./random.ts";
import { FulfilmentScheduler } from "./scheduler.ts";
import { createRequestHandler, INSPECT_PREFIX } from "./server.ts";
import { type SandboxDatabase, SqlSandboxStore } from "./sql-store.ts";
import { MemorySandboxStore, type SandboxOrder, type SandboxStore } from "./store.ts";
import {
  describeOrder,
  progressed,
  type SandboxOrderDetail,
  type SandboxOrderSummary,
  summarise,
} from "./views.ts";

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** `KEY` or `CUSTOMER:KEY`, test keys only. Default: one generated `ods_test_…` key. */
  apiKeys?: readonly string[];
  /** Where events are POSTed; none → events are recorded but not delivered. */
  webhookUrl?: string;
  /**
   * Signing secrets in the dialect's scheme (several while rotating: each signs): `whsec_…` for `default`, any
   * 16+ characters without whitespace for `alt`. Default with a webhook URL: one generated secret.
   */
  webhookSecret?: string | readonly string[];
  /** The shape and signing of the events sent (dialect.ts). Default `default`: ours, Standard Webhooks. */
  dialect?: SandboxDialect;
  /** Time compression of the fulfilment timeline and the retry schedule. Default 1 (realistic). */
  speed?: number;
  /** Makes plans and fault decisions repeatable. Default: random (shown in `handle.seed`). */
  seed?: string | number;
  failRate?: number;
  latencyMs?: number;
  /** Orders whose estimated delivery slips (by item number, document number or customer reference). */
  late?: readonly LateDelivery[];
  /** Orders accepted and then never shipped (by item number, document number or customer reference). */
  stall?: readonly Stall[];
  /** Share of events (0–1) delivered a second time after their successful delivery. */
  duplicateRate?: number;
  /** Share of adjacent event pairs (0–1) of an order delivered swapped. */
  reorderRate?: number;
  deliveryTimeoutMs?: number;
  /** Wait before each delivery attempt at speed 1; its length is the number of attempts. */
  retryScheduleMs?: readonly number[];
  /** Keep orders in the project store in this directory (PGlite); they survive restarts. Needs `openDatabase`. */
  dataDir?: string;
  /**
   * Opens the database in `dataDir`: handed in by the composition root (the `order-desk sandbox` command), so
   * that the sandbox never imports the app's store.
   */
  openDatabase?: (dataDir: string, logger: Logger) => Promise<SandboxDatabase>;
  /** Or an already open database (tests); the sandbox does not close it. Wins over `dataDir`. */
  store?: SandboxDatabase;
  /** In-memory store only: orders kept before the oldest are forgotten. */
  maxOrders?: number;
  /** Base of the tracking URLs in shipping updates. Default: this sandbox's URL. */
  publicUrl?: string;
  clock?: Clock;
  logger?: Logger;
}

export interface SandboxHandle {
  /** `http://host:port` — the supplier base URL to give a client. */
  readonly url: string;
  /** The accepted test keys (generated when none were given). */
  readonly keys: readonly SandboxKey[];
  /** The webhook signing secrets in use; empty without a webhook URL. */
  readonly webhookSecrets: readonly string[];
  readonly dialect: SandboxDialect;
  readonly seed: string;
  readonly speed: number;
  orders(options?: { limit?: number; customer?: string }): Promise<SandboxOrderSummary[]>;
  order(correlationId: string): Promise<SandboxOrderDetail | null>;
  faults(): Faults;
  setFaults(update: Partial<Faults>): Faults;
  close(): Promise<void>;
}

/** Options that cannot work; the message names the option and what to give instead. */
export class SandboxConfigError extends Error {
  readonly code = "invalid_sandbox_options";
}

function checkRate(name: string, value: number | undefined): number {
  const rate = value ?? 0;
  if (!(rate >= 0 && rate <= 1))
    throw new SandboxConfigError(`${name} must be between 0 and 1 (got ${value}).`);
  return rate;
}

interface Resolved {
  keys: SandboxKey[];
  secrets: string[];
  dialect: SandboxDialect;
  speed: number;
  seed: string;
  faults: Faults;
}

function resolveOptions(options: SandboxOptions): Resolved {
  const keys = (options.apiKeys?.length ? options.apiKeys : [generateTestKey()]).map((spec) => {
    try {
      return parseSandboxKey(spec);
    } catch (error) {
      throw new SandboxConfigError((error as Error).message);
    }
  });
  const speed = options.speed ?? 1;
  if (!(Number.isFinite(speed) && speed > 0)) {
    throw new SandboxConfigError(
      `speed must be a number > 0 (got ${options.speed}); 600 plays an order in seconds.`,
    );
  }
  const dialect = options.dialect ?? "default";
  if (dialect !== "default" && dialect !== "alt") {
    throw new SandboxConfigError(`dialect must be "default" or "alt" (got "${String(dialect)}").`);
  }
  let secrets: string[] = [];
  if (options.webhookUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.webhookUrl);
    } catch {
      throw new SandboxConfigError(
        "webhookUrl is not a URL: give the full address, e.g. http://127.0.0.1:3000/webhooks/supplier.",
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new SandboxConfigError("webhookUrl must be an http:// or https:// URL.");
    }
    const resolvedSecrets = resolveWebhookSecrets(dialect, options.webhookSecret);
    if (!resolvedSecrets.ok) throw new SandboxConfigError(resolvedSecrets.problems.join(" "));
    secrets = resolvedSecrets.secrets;
  } else if (options.webhookSecret !== undefined) {
    throw new SandboxConfigError("webhookSecret is set but webhookUrl is not: say where to deliver events.");
  }
  checkRate("duplicateRate", options.duplicateRate);
  checkRate("reorderRate", options.reorderRate);
  let faults: Faults;
  try {
    faults = mergeFaults(NO_FAULTS, {
      failRate: options.failRate ?? 0,
      latencyMs: options.latencyMs ?? 0,
      late: options.late ?? [],
      stall: options.stall ?? [],
    });
  } catch (error) {
    throw new SandboxConfigError((error as Error).message);
  }
  return { keys, secrets, dialect, speed, seed: String(options.seed ?? randomInt(1, 2 ** 31 - 1)), faults };
}

async function openSandboxStore(options: SandboxOptions, logger: Logger): Promise<SandboxStore> {
  if (options.store) return SqlSandboxStore.open(options.store, { ownsStore: false });
  if (options.dataDir !== undefined) {
    if (!options.openDatabase) {
      throw new SandboxConfigError(
        "dataDir needs a way to open the database (openDatabase); run `order-desk sandbox --data-dir …`",
      );
    }
    return SqlSandboxStore.open(await options.openDatabase(options.dataDir, logger), { ownsStore: true });
  }
  return new MemorySandboxStore(options.maxOrders === undefined ? {} : { maxOrders: options.maxOrders });
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * The plan is computed on first read (the scheduler, the store's SQL insert, a view), not on the request path:
 * without a webhook most orders — a load test's — are never looked at, and the plan is deterministic anyway.
 */
function withLazyPlan(order: Omit<SandboxOrder, "plan">, compute: () => PlannedEvent[]): SandboxOrder {
  let plan: PlannedEvent[] | undefined;
  return Object.defineProperty(order, "plan", {
    enumerable: true,
    configurable: true,
    get: () => {
      plan ??= compute();
      return plan;
    },
  }) as SandboxOrder;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const logger = options.logger ?? pino({ level: "silent" });
  const clock = options.clock ?? systemClock;
  const resolved = resolveOptions(options);
  const { speed, seed } = resolved;
  let faults = resolved.faults;
  const keys = new KeyRing(resolved.keys);
  const store = await openSandboxStore(options, logger);

  const deliverer =
    options.webhookUrl === undefined
      ? null
      : new WebhookDeliverer({
          url: options.webhookUrl,
          secrets: resolved.secrets,
          dialect: resolved.dialect,
          store,
          clock,
          speed,
          seed,
          timeoutMs: options.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
          scheduleMs: options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS,
          duplicateRate: options.duplicateRate ?? 0,
          reorderRate: options.reorderRate ?? 0,
          logger,
        });
  const lazy = deliverer === null;
  const scheduler = new FulfilmentScheduler({
    store,
    clock,
    speed,
    deliver: deliverer ? (item) => deliverer.enqueue(item) : null,
    logger,
  });

  let publicUrl = options.publicUrl ?? "";
  const handler = createRequestHandler({
    keys,
    store,
    faults: () => faults,
    faultRandom: createRandom(seed, "faults"),
    now: () => clock.now(),
    speed,
    lazy,
    logger,
    accept: ({ correlationId, customer, apiKey, request, acceptedAt }) => {
      // Decided now, under the faults in force at acceptance: a later change does not rewrite an order's plan.
      const fault = fulfilmentFaultOf(faults, request);
      return withLazyPlan(
        {
          correlationId,
          customer,
          externalDocumentNumber: request.externalDocumentNumber,
          apiKey,
          request,
          acceptedAt,
          status: "received",
          statusAt: acceptedAt,
          nextStep: 0,
        },
        () =>
          planFulfilment(
            {
              correlationId,
              request,
              acceptedAt,
              trackingUrl: ({ number }) => `${publicUrl}${INSPECT_PREFIX}/${correlationId}?parcel=${number}`,
              fault,
            },
            // Per customer and number, not per arrival: the same orders replay the same plans under one seed.
            createRandom(seed, customer, request.externalDocumentNumber, "plan"),
          ),
      );
    },
    // Without a webhook there is nothing to push: progress is computed when looked at (views.ts, `lazy`).
    started: lazy ? () => {} : (order) => scheduler.track(order),
  });

  const server = createServer(
    { keepAliveTimeout: 65_000, headersTimeout: 66_000, requestTimeout: 120_000 },
    handler,
  );
  let address: AddressInfo;
  try {
    address = await listen(server, options.port ?? 0, options.host ?? "127.0.0.1");
  } catch (error) {
    await store.close();
    throw error;
  }
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  if (publicUrl === "") publicUrl = url;

  // Resume what a previous run left: deliveries first, so an order's old events go out before its new ones.
  if (deliverer) for (const item of await store.pendingDeliveries()) deliverer.enqueue(item);
  // Without a webhook nothing runs in the background; with one, plans resume (steps already due go out at once).
  if (!lazy) for (const order of await store.unfinishedOrders()) scheduler.track(order);

  let closing: Promise<void> | null = null;
  return {
    url,
    keys: resolved.keys,
    webhookSecrets: resolved.secrets,
    dialect: resolved.dialect,
    seed,
    speed,
    async orders(query = {}) {
      const orders = await store.listOrders({
        limit: query.limit ?? 100,
        ...(query.customer !== undefined && { customer: query.customer }),
      });
      const context = { now: clock.now(), speed, lazy };
      return orders.map((order) => summarise(progressed(order, [], context).order));
    },
    async order(correlationId) {
      const order = await store.getOrder(correlationId);
      if (!order) return null;
      const now = progressed(order, await store.events(correlationId), { now: clock.now(), speed, lazy });
      return describeOrder(now.order, now.events, speed);
    },
    faults: () => faults,
    setFaults(update) {
      faults = mergeFaults(faults, update);
      return faults;
    },
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Requests in flight get a moment to finish; then every connection goes.
        const force = setTimeout(() => server.closeAllConnections(), 1_000);
        await stopped;
        clearTimeout(force);
        await scheduler.close();
        await deliverer?.close();
        await store.close();
      })();
      return closing;
    },
  };
}
