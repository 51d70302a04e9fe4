/**
 * The webhook receiver as it runs in production — the app's HTTP server, the real route (limits, Standard
 * Webhooks verification, parsing, id check), the real store and the same-transaction `post-update` enqueue —
 * started on its own for load tests (`npm run bench` spawns it; see docs/webhooks.md, Benchmark).
 *
 *   node --import tsx bench/servers/webhook-receiver.ts '{"secret":"whsec_…","dataDir":"/tmp/x"}'
 *   node --import tsx bench/servers/webhook-receiver.ts '{"secret":"<hmac key>","supplierEvents":"examples/supplier-events.alt.yml"}'
 *
 * With `supplierEvents`, the receiver signs and maps as that file says (the block of the customer file's
 * `supplierEvents`, validated by the same schema as at start-up); without it, our own format and Standard Webhooks.
 * Configuration: one JSON argument (the bench harness protocol). Prints one line
 * `BENCH_READY {"url":…,"path":"/webhooks/supplier","correlationIds":[…],"scheme":…}` once it listens; the correlation ids
 * are orders it seeded, so events for them take the full path (order found, posting enqueued). No worker runs:
 * this measures ingest, and the queued jobs stay queued. SIGTERM/SIGINT close it.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { pino } from "pino";
import { parse } from "yaml";
import { type SupplierEvents, supplierEventsSchema } from "../../src/config/supplier-events.ts";
import { startHttpServer } from "../../src/http/server.ts";
import { createJobs } from "../../src/jobs/index.ts";
import { openStore } from "../../src/store/db.ts";
import { insertOrder, markPlaced } from "../../src/store/repositories/orders.ts";
import { compileEventMapping } from "../../src/supplier/event-mapping.ts";
import type { CreateOrderRequest } from "../../src/supplier/schema.ts";
import { WEBHOOK_PATH, webhookRoute } from "../../src/webhooks/receiver.ts";

export interface WebhookBenchConfig {
  secret: string;
  /**
   * A YAML or JSON file holding a `supplierEvents` block (its keys, e.g. examples/supplier-events.alt.yml): how
   * deliveries are signed and mapped. Absent: the defaults (Standard Webhooks, our own format).
   */
  supplierEvents?: string;
  /** PostgreSQL URL, or absent for PGlite in `dataDir` (default in memory). */
  databaseUrl?: string;
  dataDir?: string;
  /** PostgreSQL: a schema of its own (created). */
  schema?: string;
  /** Orders to seed with a correlation id (default 100). */
  seedOrders?: number;
  /** Default 1000 ms, the production default (WEBHOOK_SETTLE_MS). */
  settleMs?: number;
  port?: number;
}

const raw = process.argv[2];
if (raw === undefined) throw new Error("usage: webhook-receiver.ts '<json config>' (see the file's header)");
const config = JSON.parse(raw) as WebhookBenchConfig;
const logger = pino({ level: "warn" });
const supplierEvents: SupplierEvents | undefined =
  config.supplierEvents === undefined
    ? undefined
    : supplierEventsSchema.parse(parse(readFileSync(config.supplierEvents, "utf8")));

const store = await openStore({
  ...(config.databaseUrl
    ? { databaseUrl: config.databaseUrl, ...(config.schema && { schema: config.schema }) }
    : { dataDir: config.dataDir ?? "memory://" }),
  logger,
});
const jobs = createJobs({ store, logger });
await jobs.start();

const correlationIds: string[] = [];
for (let i = 0; i < (config.seedOrders ?? 100); i++) {
  const id = randomUUID();
  const correlationId = randomUUID();
  await insertOrder(store, {
    id,
    profile: "bench",
    externalDocumentNumber: `BENCH-${id}`,
    requestedBy: "U0BENCH",
    source: "cli",
    request: { externalDocumentNumber: `BENCH-${id}` } as CreateOrderRequest,
  });
  await markPlaced(store, id, { correlationId, placedEarlier: false });
  correlationIds.push(correlationId);
}

const http = await startHttpServer({
  host: "127.0.0.1",
  port: config.port ?? 0,
  logger,
  routes: [
    webhookRoute({
      store,
      jobs,
      getSecrets: () => [config.secret],
      ...(supplierEvents && {
        signing: supplierEvents.signing,
        mapper: compileEventMapping(supplierEvents.mapping),
      }),
      settleMs: config.settleMs ?? 1000,
      logger,
    }),
  ],
});
process.stdout.write(
  `BENCH_READY ${JSON.stringify({
    url: http.url,
    path: WEBHOOK_PATH,
    correlationIds,
    backend: store.kind,
    scheme: supplierEvents?.signing.scheme ?? "standard-webhooks",
  })}\n`,
);

let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  setTimeout(() => process.exit(0), 5000).unref();
  (async () => {
    await http.close({ graceMs: 1000 });
    await jobs.stop({ graceMs: 1000 });
    if (config.schema && store.kind === "postgres") {
      await store.query(`DROP SCHEMA IF EXISTS ${config.schema} CASCADE`).catch(() => {});
      await store.query(`DROP SCHEMA IF EXISTS ${config.schema}_jobs CASCADE`).catch(() => {});
    }
    await store.close();
  })().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`close failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
