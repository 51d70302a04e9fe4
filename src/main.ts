/**
 * The composition root: `startOrderDesk` starts opening the store, reads the customer file, and has compose.ts
 * build every other part with its dependencies and start them in order; `stop` stops them in the reverse order on
 * SIGTERM. No business rule lives here.
 *
 * The store opens first, while the customer file is read and the rest of the app's modules load (compose.ts is
 * imported only then): on the embedded store its WebAssembly compiles and a new store is unpacked from the prebuilt
 * data directory on other threads and in a child process, which this thread otherwise waited for once it had
 * loaded the app (docs/store.md, "Start-up and memory of the embedded store"). The migrations wait for the customer
 * file: a mistake in it stops a start with no migration applied, and a store this start created is taken back.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { Logger } from "pino";
import { type Customer, createCustomer } from "./config/catalog.ts";
import { loadCustomerConfig } from "./config/customer.ts";
import type { Config } from "./config.ts";
import type { Jobs } from "./jobs/index.ts";
import { createLogger } from "./log.ts";
import type { Metrics } from "./metrics.ts";
import type { SlackApp } from "./slack/app.ts";
import { openStore, type Store } from "./store/db.ts";
import { runMigrations } from "./store/migrate.ts";
import { supplierEventsReader } from "./webhooks/events-reader.ts";

export interface OrderDesk {
  readonly config: Config;
  /** The public listener: webhooks, Slack events in HTTP mode, `/healthz` and `/readyz` without details. */
  readonly url: string;
  /** The operations listener (loopback by default): `/metrics`, `/healthz`, `/readyz` with details. */
  readonly opsUrl: string;
  readonly store: Store;
  readonly jobs: Jobs;
  readonly slack: SlackApp;
  readonly customer: Customer;
  readonly metrics: Metrics;
  /** Stops taking work, lets running jobs finish within the grace period, closes everything. Idempotent. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Credentials for Secrets Manager (the offline demo); otherwise the SDK's default chain. */
  secretsCredentials?: { accessKeyId: string; secretAccessKey: string };
  /** Process-wide default metrics (event loop, memory); off for several instances in one process. */
  defaultMetrics?: boolean;
  /**
   * The app's clock (default the real one): today, lead times and risk, what messages say about dates, deadlines,
   * months, when an approval's reminder and expiry are due. Tests set it elsewhere (the watchdog's deadlines, a
   * month's end, a chosen day); signatures, the database's times, Slack's timestamps and waits (timeouts, graces,
   * retry delays) stay on the wall clock, and each comparison reads one clock only.
   */
  now?: () => Date;
}

export async function startOrderDesk(config: Config, options: StartOptions = {}): Promise<OrderDesk> {
  const logger =
    options.logger ??
    createLogger({
      level: config.log.level,
      format: config.log.format,
      logPersonalData: config.log.logPersonalData,
    });
  // A first start that fails (Slack refuses the token, say) takes back the embedded store it created, so the
  // next attempt starts as fresh as this one and no stray ./data is left where the user ran it.
  const newDataDir =
    config.store.databaseUrl === undefined &&
    !config.store.dataDir.startsWith("memory://") &&
    !existsSync(resolve(config.store.dataDir))
      ? resolve(config.store.dataDir)
      : null;
  const { databaseUrl, dataDir } = config.store;
  // Migrated below, once the customer file has been read.
  const opened = openStore({ ...(databaseUrl ? { databaseUrl } : { dataDir }), logger, migrate: false });
  opened.catch(() => {}); // awaited, and its failure reported, through `opening` below

  try {
    // Read while the store opens: a mistake in it stops the start before any migration has run.
    const customer = createCustomer(await loadCustomerConfig(config.customerConfigPath));
    const eventMapper = supplierEventsReader(customer.config.supplierEvents, config.webhooks.secrets);
    const opening = opened.then((store) => migrated(store, logger));
    opening.catch(() => {}); // awaited, and its failure reported, by composeOrderDesk
    const { composeOrderDesk } = await import("./compose.ts");
    return await composeOrderDesk({ config, options, logger, customer, eventMapper, opening });
  } catch (error) {
    // composeOrderDesk stopped what it started; the store too, unless it failed before taking it (closing twice is fine).
    await opened.then(
      (store) => store.close(),
      () => {},
    );
    if (newDataDir) await rm(newDataDir, { recursive: true, force: true }).catch(() => {});
    throw error;
  }
}

/** The store once its pending migrations are applied; closed when one fails. */
async function migrated(store: Store, logger: Logger): Promise<Store> {
  try {
    await runMigrations(store, { logger });
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}
