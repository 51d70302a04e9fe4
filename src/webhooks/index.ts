export { checkDeclaredLength, readRawBody } from "./body.ts";
export { WebhookRejectedError, type WebhookRejectionReason } from "./errors.ts";
export { createIngester, type IngestDeps, type Ingester, type IngestResult } from "./ingest.ts";
export {
  attachOrphanEvents,
  createOrphanSweeper,
  type OrphanDeps,
  type OrphanSweeper,
  type OrphanSweepOptions,
  type SweepResult,
} from "./orphans.ts";
export {
  createWebhookHandler,
  type GetWebhookSecrets,
  WEBHOOK_PATH,
  type WebhookReceiverOptions,
  webhookRoute,
} from "./receiver.ts";
