/**
 * The supplier's side of the app, assembled for main.ts: the webhook route (signing and mapping from the
 * customer file's `supplierEvents`), the reprocessing of unreadable deliveries an admin asks for, and the orphan
 * sweep. No business rule lives here.
 */
import type { Logger } from "pino";
import type { SupplierEvents } from "../config/supplier-events.ts";
import type { Config } from "../config.ts";
import type { Route } from "../http/server.ts";
import type { Jobs } from "../jobs/jobs.ts";
import type { Metrics } from "../metrics.ts";
import type { AttentionAlerts } from "../orders/operations/report.ts";
import type { AdminAlert } from "../orders/ports.ts";
import type { Store } from "../store/db.ts";
import type { EventMapper } from "../supplier/event-mapping.ts";
import { createOrphanSweeper, type OrphanSweeper } from "./orphans.ts";
import { type GetWebhookSecrets, webhookRoute } from "./receiver.ts";
import { workReprocess } from "./reprocess-job.ts";

export interface SupplierSideDeps {
  config: Pick<Config, "webhooks">;
  supplierEvents: SupplierEvents;
  mapper: EventMapper;
  store: Store;
  jobs: Jobs;
  getSecrets: GetWebhookSecrets;
  alerts: AttentionAlerts;
  alertAdmins: (alert: AdminAlert) => Promise<void>;
  metrics: Metrics;
  logger: Logger;
}

/** Starts the reprocessing worker and the orphan sweep; returns the route to serve and the sweep to stop. */
export function startSupplierSide(deps: SupplierSideDeps): { route: Route; sweeper: OrphanSweeper } {
  const { config, store, jobs, logger } = deps;
  const settleMs = config.webhooks.settleMs;
  workReprocess(jobs, { store, jobs, mapper: deps.mapper, settleMs, alerts: deps.alerts, logger });
  const sweeper = createOrphanSweeper({
    store,
    jobs,
    settleMs,
    orphanAfterMs: config.webhooks.orphanAfterMs,
    alertAdmins: deps.alertAdmins,
    logger,
  });
  sweeper.start();
  const route = webhookRoute({
    store,
    jobs,
    getSecrets: deps.getSecrets,
    signing: deps.supplierEvents.signing,
    mapper: deps.mapper,
    alerts: deps.alerts,
    toleranceSeconds: config.webhooks.toleranceSeconds,
    settleMs,
    metrics: deps.metrics,
    logger,
  });
  return { route, sweeper };
}
