/**
 * The `place-order` job: post the order's message if it has none, read the API key, call the supplier, record the
 * outcome, update the message. No transaction is held across a network call: each step is one statement.
 *
 * Outcomes:
 * - accepted → `received` with the correlationId;
 * - refused (VALIDATION_FAILED, DUPLICATE_ORDER, our copy of the rules) → `failed` with the reasons; the agent
 *   fixes and resubmits (no retry: the same request would be refused again);
 * - supplier unavailable, rate limited, secret unreadable → rethrown so the queue retries with backoff, and the
 *   message says "retrying automatically"; on the last attempt → `failed`;
 * - key rejected (401) even after re-reading the key and trying the previous version (`withApiKey`) → `failed`
 *   with the admin channel alerted once: a 4xx is never retried; the agent resubmits once the key is fixed;
 * - anything that can never succeed (bad configuration, a response we cannot read) → `failed`, no retry.
 *
 * A final state (placed, rejected, failed) that Slack cannot show right now is not left unseen: a `show-order`
 * job shows it again later, and only shows (it never places).
 */
import { type Logger, pino } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { Profile } from "../config/customer-schema.ts";
import { PermanentJobError, RetryLaterError } from "../jobs/errors.ts";
import { jobId } from "../jobs/ids.ts";
import type { Jobs } from "../jobs/jobs.ts";
import type { PlaceOrderJobData, ShowOrderJobData } from "../jobs/payloads.ts";
import { QUEUES } from "../jobs/queues.ts";
import type { JobContext, JobHandler } from "../jobs/worker.ts";
import { RefusedKeys } from "../secrets/refused-keys.ts";
import type { ApiKeyProvider } from "../secrets/types.ts";
import { oncePerKeySet, type UnauthorizedReport, withApiKey } from "../secrets/with-api-key.ts";
import type { Store } from "../store/db.ts";
import {
  getOrder,
  markFailed,
  markPlaced,
  markPlacing,
  markRejected,
  recordAttemptError,
} from "../store/repositories/orders.ts";
import type { SupplierClient } from "../supplier/client.ts";
import {
  DuplicateOrderError,
  LocalValidationError,
  RateLimitedError,
  SupplierServerError,
  SupplierUnavailableError,
  SupplierValidationError,
  UnauthorizedError,
} from "../supplier/errors.ts";
import { isApprovalState } from "./approvals/status.ts";
import {
  errorCode,
  isKeyProblem,
  keyRefused,
  permanentFailureOf,
  rejectionOf,
  retriesExhaustedOf,
  retryingOf,
} from "./failure-of.ts";
import { keyFailureAlert } from "./key-failure.ts";
import { type FinalFailure, mayHaveBeenPlaced } from "./model/failure.ts";
import { isRejected, type Order } from "./model/order.ts";
import { failedOrderAlert } from "./operations/alerts.ts";
import type { OrderChange, OrderNotifier, PlacementMetrics } from "./ports.ts";
import { showOrder } from "./show-order.ts";

export interface PlaceOrderDeps {
  store: Store;
  customer: Customer;
  supplier: Pick<SupplierClient, "createOrder" | "environment">;
  apiKeys: ApiKeyProvider;
  /** The deployment's secret id, for profiles that do not name their own. */
  defaultSecretId: string;
  notifier: OrderNotifier;
  /** Schedules the `show` job when a final state could not be shown. */
  jobs: Pick<Jobs, "send">;
  /** How long a final state Slack could not show waits before the `show` job (default 30 s). */
  showAgainAfterMs?: number;
  metrics?: PlacementMetrics;
  /**
   * Runs once the supplier accepted the order and it is shown, and again when a later run of the job finds it
   * placed: attaches supplier events that arrived before the placement was recorded (they carry a
   * correlationId we did not know yet). Must be safe to repeat.
   */
  onPlaced?: (order: Order) => Promise<void>;
  /** The app's clock (default the real one): when the order is shown placed ("received since"). */
  now?: () => Date;
  logger?: Logger;
  /** Keys the supplier refused, so a refused key is not sent on every order (default: this job's own memory). */
  refusedKeys?: RefusedKeys;
}

/** Errors after which the same request may well succeed later. */
function isTransient(error: unknown): boolean {
  return (
    error instanceof SupplierUnavailableError ||
    error instanceof SupplierServerError ||
    error instanceof RateLimitedError ||
    // Secrets Manager unreachable or throttled (src/secrets/errors.ts)
    (error as { code?: unknown } | null)?.code === "SECRET_UNAVAILABLE"
  );
}

/** A failure after which the supplier may have recorded the order (a later DUPLICATE_ORDER then means "ours"). */
function mayHaveReachedSupplier(error: unknown): boolean {
  if (error instanceof SupplierServerError) return true;
  return error instanceof SupplierUnavailableError && error.reason !== "retry_after_too_long";
}

/** How long a final state that Slack could not show waits before the `show` job tries again. */
const SHOW_AGAIN_AFTER_MS = 30_000;

/** The handlers of placement's two queues: `place-order` places, `show-order` only shows an ended order. */
export interface PlacementHandlers {
  placeOrder: JobHandler<PlaceOrderJobData>;
  showOrder: JobHandler<ShowOrderJobData>;
}

/** The change that shows an order's current state, when that state is final. */
function finalChange(order: Order): OrderChange | null {
  if (order.status === "failed") {
    return isRejected(order) ? { kind: "rejected" } : { kind: "failed" };
  }
  if (order.status === "queued" || order.status === "placing") return null;
  if (isApprovalState(order.status)) return null; // never placed: the approval jobs show it
  return { kind: "placed" };
}

function retryReason(error: unknown): string {
  if (error instanceof RateLimitedError) return "the supplier asked us to slow down. Retrying automatically.";
  if ((error as { code?: unknown } | null)?.code === "SECRET_UNAVAILABLE") {
    return "the API key could not be read from the secrets store. Retrying automatically.";
  }
  return "supplier unavailable, retrying automatically.";
}

export function placeOrderJob(deps: PlaceOrderDeps): PlacementHandlers {
  const baseLogger = deps.logger ?? pino({ level: "silent" });
  const refusedKeys = deps.refusedKeys ?? new RefusedKeys();
  const now = deps.now ?? (() => new Date());
  // One alert per secret and set of rejected key versions, however many orders fail with it.
  const alertUnauthorized = oncePerKeySet(async (report: UnauthorizedReport) => {
    const keys = report.tried.map((k) => `${k.redacted} (${k.stage})`).join(", ");
    await deps.notifier.alertAdmins({
      key: `unauthorized:${report.secretId}:${keys}`,
      title: "The supplier rejects our API key",
      text: `The supplier answered 401 to every key we have for secret ${report.secretId}: ${keys}. Orders placed meanwhile are not placed; their messages say so and agents can resubmit them once a valid key is stored as the secret's new AWSCURRENT version (docs/secrets.md).`,
    });
  });

  async function publish(
    order: Order,
    change: OrderChange,
    log: Logger,
    signal: AbortSignal,
  ): Promise<Order> {
    try {
      return await showOrder(deps.store, deps.notifier, order, change, { signal });
    } catch (error) {
      if (signal.aborted) throw error; // shutting down or timed out: the queue runs the job again
      // Showing the order must not stop placing it: the next change tries again.
      log.warn({ err: error, change: change.kind }, "could not show the order in Slack");
    }
    return order;
  }

  /**
   * Shows a final state. If Slack cannot show it even after `showOrder`'s own retries, a `show` job tries
   * again later, so the agent is never left with "placing…" on an order that ended.
   */
  async function publishFinal(
    order: Order,
    change: OrderChange,
    log: Logger,
    signal: AbortSignal,
  ): Promise<Order> {
    try {
      return await showOrder(deps.store, deps.notifier, order, change, { signal });
    } catch (error) {
      log.warn(
        { err: error, change: change.kind },
        "could not show the order's outcome in Slack; showing it later",
      );
      await scheduleShow(order, log);
      return order;
    }
  }

  async function scheduleShow(order: Order, log: Logger): Promise<void> {
    const data: ShowOrderJobData = { orderId: order.id };
    try {
      await deps.jobs.send(QUEUES.showOrder, data, {
        id: jobId(QUEUES.showOrder, order.id, order.statusAt.toISOString()),
        startAfter: new Date(Date.now() + (deps.showAgainAfterMs ?? SHOW_AGAIN_AFTER_MS)),
      });
    } catch (error) {
      log.error({ err: error }, "could not schedule showing the order's outcome again");
    }
  }

  /** The `show` job: the order ended but Slack could not show it; throws (the queue retries) until it can. */
  async function showAgain(orderId: string, log: Logger, signal: AbortSignal): Promise<void> {
    const order = await getOrder(deps.store, orderId);
    const change = order && finalChange(order);
    if (!order || !change) return;
    await showOrder(deps.store, deps.notifier, order, change, { signal });
    log.info({ change: change.kind }, "showed the order's outcome in Slack");
  }

  async function fail(order: Order, failure: FinalFailure, log: Logger, signal: AbortSignal): Promise<never> {
    deps.metrics?.failed(failure.code ?? "UNKNOWN");
    const failed = (await markFailed(deps.store, order.id, failure)) ?? order;
    await publishFinal(failed, { kind: "failed" }, log, signal);
    // The admins can retry it from the alert (Retry now) once the cause is fixed.
    await deps.notifier
      .alertAdmins(failedOrderAlert(failed))
      .catch((alertError: unknown) => log.warn({ err: alertError }, "admin alert failed"));
    throw new PermanentJobError(`order ${order.id} failed: ${String(failure.message)}`);
  }

  const showOrderHandler: JobHandler<ShowOrderJobData> = async (job) => {
    const log = baseLogger.child({ orderId: job.data.orderId, jobId: job.id, attempt: job.attempt });
    await showAgain(job.data.orderId, log, job.signal);
  };

  const placeOrderHandler: JobHandler<PlaceOrderJobData> = async (job) => {
    const data = job.data;
    const log = baseLogger.child({ orderId: data.orderId, jobId: job.id, attempt: job.attempt });
    const found = await getOrder(deps.store, data.orderId);
    if (!found) throw new PermanentJobError(`order ${data.orderId} does not exist`);
    let order = await markPlacing(deps.store, found.id);
    if (!order) {
      log.info({ status: found.status }, "order already moved on; nothing to place");
      // A run that recorded the outcome may have died before showing it, or before `onPlaced` attached the
      // events that beat it: both are safe to repeat.
      const change = finalChange(found);
      const shown = change ? await publishFinal(found, change, log, job.signal) : found;
      if (found.correlationId !== null) await deps.onPlaced?.(shown);
      return;
    }
    // First run: post the message, or (a resubmission) turn it back to "placing". Retries keep "retrying".
    if (!order.slackMessageTs || job.attempt === 1)
      order = await publish(order, { kind: "placing" }, log, job.signal);

    const profile: Profile | undefined = deps.customer.profile(order.profile);
    if (!profile) {
      return fail(
        order,
        {
          kind: "failed",
          reason: "profile_misconfigured",
          code: "UNKNOWN_PROFILE",
          message: `the profile "${order.profile}" is no longer in order-desk.config.yml`,
        },
        log,
        job.signal,
      );
    }
    if (profile.supplier.environment !== deps.supplier.environment) {
      await deps.notifier
        .alertAdmins({
          key: `environment:${profile.name}`,
          title: "Profile and supplier environment differ",
          text: `Profile "${profile.name}" orders from the ${profile.supplier.environment} supplier environment, but Order Desk is connected to ${deps.supplier.environment}. Fix SUPPLIER_ENVIRONMENT/SUPPLIER_BASE_URL or the profile.`,
        })
        .catch((error) => log.warn({ err: error }, "admin alert failed"));
      return fail(
        order,
        {
          kind: "failed",
          reason: "profile_misconfigured",
          code: "ENVIRONMENT_MISMATCH",
          message: `profile "${profile.name}" is for the ${profile.supplier.environment} supplier environment, but Order Desk is connected to ${deps.supplier.environment}; an admin has been alerted`,
        },
        log,
        job.signal,
      );
    }

    const request = order.request;
    const secretId = profile.apiKeySecretId ?? deps.defaultSecretId;
    try {
      const result = await withApiKey(
        deps.apiKeys,
        secretId,
        (apiKey) => deps.supplier.createOrder(request, { apiKey, signal: job.signal }),
        { onUnauthorized: alertUnauthorized, logger: log, refused: refusedKeys },
      );
      const placed = await markPlaced(deps.store, order.id, {
        correlationId: result.correlationId,
        placedEarlier: result.placedEarlier,
        at: now(),
      });
      log.info({ correlationId: result.correlationId, placedEarlier: result.placedEarlier }, "order placed");
      deps.metrics?.placed(order.source);
      const shown = await publishFinal(placed ?? order, { kind: "placed" }, log, job.signal);
      await deps.onPlaced?.(shown);
    } catch (error) {
      if (job.signal.aborted) throw error; // shutting down or timed out: the queue runs it again
      await handleFailure(order, error, job, log);
    }
  };
  return { placeOrder: placeOrderHandler, showOrder: showOrderHandler };

  async function alertKeyFailure(error: unknown, log: Logger): Promise<void> {
    await deps.notifier
      .alertAdmins(keyFailureAlert(error))
      .catch((e) => log.warn({ err: e }, "admin alert failed"));
  }

  async function handleFailure(
    order: Order,
    error: unknown,
    job: JobContext<PlaceOrderJobData>,
    log: Logger,
  ): Promise<void> {
    if (error instanceof DuplicateOrderError && mayHaveBeenPlaced(order.failure)) {
      // An earlier run timed out or hit a 5xx after sending: the supplier has our order under this number.
      const placed = await markPlaced(deps.store, order.id, {
        correlationId: null,
        placedEarlier: true,
        at: now(),
      });
      log.warn("DUPLICATE_ORDER after an uncertain earlier attempt: treating the order as placed");
      deps.metrics?.placed(order.source);
      const shown = await publishFinal(placed ?? order, { kind: "placed" }, log, job.signal);
      await deps.onPlaced?.(shown);
      return;
    }
    if (
      error instanceof SupplierValidationError ||
      error instanceof LocalValidationError ||
      error instanceof DuplicateOrderError
    ) {
      const rejected = await markRejected(deps.store, order.id, rejectionOf(error));
      log.info({ code: error.code }, "the supplier rejected the order");
      deps.metrics?.rejected(error instanceof LocalValidationError ? "VALIDATION_FAILED" : error.code);
      await publishFinal(rejected ?? order, { kind: "rejected" }, log, job.signal);
      return;
    }
    if (isTransient(error)) {
      const maybePlaced = mayHaveReachedSupplier(error) || mayHaveBeenPlaced(order.failure);
      const updated =
        (await recordAttemptError(deps.store, order.id, retryingOf(error, maybePlaced, job.attempt))) ??
        order;
      if (job.isFinalAttempt) {
        log.error({ err: error }, "placement retries exhausted");
        if (isKeyProblem(error)) await alertKeyFailure(error, log);
        return fail(updated, retriesExhaustedOf(error, maybePlaced), log, job.signal);
      }
      deps.metrics?.failed(errorCode(error));
      await publish(updated, { kind: "retrying", reason: retryReason(error) }, log, job.signal);
      const retryAfterMs = (error as { retryAfterMs?: unknown }).retryAfterMs;
      if (error instanceof RateLimitedError && typeof retryAfterMs === "number") {
        throw new RetryLaterError(retryAfterMs, "the supplier rate-limited us", { cause: error });
      }
      throw error;
    }
    // The details (secret id, region, variables to check) go to the admins; the order keeps plain words.
    if (isKeyProblem(error)) await alertKeyFailure(error, log);
    if (error instanceof UnauthorizedError) {
      // withApiKey re-read the key and tried the previous version; the admins are alerted (once per key set).
      log.error({ err: error }, "the supplier rejects every API key we have; the order is not placed");
      return fail(order, keyRefused(mayHaveBeenPlaced(order.failure)), log, job.signal);
    }
    log.error({ err: error }, "placement failed and cannot succeed by retrying");
    return fail(order, permanentFailureOf(error), log, job.signal);
  }
}
