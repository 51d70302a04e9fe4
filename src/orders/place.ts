/**
 * The `place-order` job: post the order's message if it has none, read the API key, call the supplier, record the
 * outcome, update the message. No transaction is held across a network call: each step is one statement.
 *
 * Outcomes:
 * - accepted → `received` with the correlationId;
 * - refused (VALIDATION_FAILED, DUPLICATE_ORDER, our copy of the rules) → `failed` with the reasons; the agent
 *   fixes and resubmits (no retry: the same request would be refused again);
 * - supplier unavailable, rate limited, key rejected, secret unreadable → rethrown so the queue retries with
 *   backoff, and the message says "retrying automatically"; on the last attempt → `failed`;
 * - anything that can never succeed (bad configuration, a response we cannot read) → `failed`, no retry.
 */
import { type Logger, pino } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { Profile } from "../config/customer-schema.ts";
import { PermanentJobError, RetryLaterError } from "../jobs/errors.ts";
import type { JobContext } from "../jobs/worker.ts";
import { isSecretsError } from "../secrets/errors.ts";
import type { ApiKeyProvider } from "../secrets/types.ts";
import { oncePerKeySet, type UnauthorizedReport, withApiKey } from "../secrets/with-api-key.ts";
import type { Store } from "../store/db.ts";
import {
  getOrder,
  markFailed,
  markPlaced,
  markPlacing,
  markRejected,
  type Order,
  recordAttemptError,
} from "../store/repositories/orders.ts";
import type { SupplierClient } from "../supplier/client.ts";
import {
  DuplicateOrderError,
  KeyEnvironmentMismatchError,
  LocalValidationError,
  MalformedApiKeyError,
  RateLimitedError,
  SupplierError,
  SupplierServerError,
  SupplierUnavailableError,
  SupplierValidationError,
  UnauthorizedError,
} from "../supplier/errors.ts";
import { InvalidJobDataError } from "./errors.ts";
import type { OrderChange, OrderNotifier } from "./ports.ts";
import { showOrder } from "./show-order.ts";
import type { PlaceOrderJobData } from "./submit.ts";

export interface PlaceOrderDeps {
  store: Store;
  customer: Customer;
  supplier: Pick<SupplierClient, "createOrder" | "environment">;
  apiKeys: ApiKeyProvider;
  /** The deployment's secret id, for profiles that do not name their own. */
  defaultSecretId: string;
  notifier: OrderNotifier;
  /**
   * Runs once the supplier accepted the order and it is shown: attaches supplier events that arrived before
   * the placement was recorded (they carry a correlationId we did not know yet).
   */
  onPlaced?: (order: Order) => Promise<void>;
  logger?: Logger;
}

/** Errors after which the same request may well succeed later. */
function isTransient(error: unknown): boolean {
  return (
    error instanceof SupplierUnavailableError ||
    error instanceof SupplierServerError ||
    error instanceof RateLimitedError ||
    error instanceof UnauthorizedError ||
    // Secrets Manager unreachable or throttled (src/secrets/errors.ts)
    (error as { code?: unknown } | null)?.code === "SECRET_UNAVAILABLE"
  );
}

/** A failure after which the supplier may have recorded the order (a later DUPLICATE_ORDER then means "ours"). */
function mayHaveReachedSupplier(error: unknown): boolean {
  if (error instanceof SupplierServerError) return true;
  return error instanceof SupplierUnavailableError && error.reason !== "retry_after_too_long";
}

function errorRecord(error: unknown): Record<string, unknown> {
  if (error instanceof SupplierError) return error.toJSON();
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === "string" ? { code } : {}) };
  }
  return { message: String(error) };
}

function retryReason(error: unknown): string {
  if (error instanceof UnauthorizedError) {
    return "the supplier rejected our API key; an admin has been alerted. Retrying automatically.";
  }
  if (error instanceof RateLimitedError) return "the supplier asked us to slow down. Retrying automatically.";
  if ((error as { code?: unknown } | null)?.code === "SECRET_UNAVAILABLE") {
    return "the API key could not be read from the secrets store. Retrying automatically.";
  }
  return "supplier unavailable, retrying automatically.";
}

export function placeOrderJob(deps: PlaceOrderDeps): (job: JobContext<unknown>) => Promise<void> {
  const baseLogger = deps.logger ?? pino({ level: "silent" });
  // One alert per secret and set of rejected key versions, however many orders fail with it.
  const alertUnauthorized = oncePerKeySet(async (report: UnauthorizedReport) => {
    const keys = report.tried.map((k) => `${k.redacted} (${k.stage})`).join(", ");
    await deps.notifier.alertAdmins({
      key: `unauthorized:${report.secretId}:${keys}`,
      title: "The supplier rejects our API key",
      text: `The supplier answered 401 to every key we have for secret ${report.secretId}: ${keys}. Orders are queued and retried automatically. Store a valid key as the secret's new AWSCURRENT version (docs/secrets.md).`,
    });
  });

  async function publish(order: Order, change: OrderChange, log: Logger): Promise<Order> {
    try {
      return await showOrder(deps.store, deps.notifier, order, change);
    } catch (error) {
      // Showing the order must not stop placing it: the next change tries again.
      log.warn({ err: error, change: change.kind }, "could not show the order in Slack");
    }
    return order;
  }

  async function fail(order: Order, error: object, log: Logger): Promise<never> {
    const failed = (await markFailed(deps.store, order.id, error)) ?? order;
    await publish(failed, { kind: "failed" }, log);
    throw new PermanentJobError(
      `order ${order.id} failed: ${String((error as { message?: unknown }).message)}`,
    );
  }

  return async (job) => {
    const data = job.data as Partial<PlaceOrderJobData> | null;
    if (typeof data?.orderId !== "string") {
      throw new PermanentJobError("place-order job without an orderId", {
        cause: new InvalidJobDataError("expected { orderId: string }"),
      });
    }
    const log = baseLogger.child({ orderId: data.orderId, jobId: job.id, attempt: job.attempt });
    const found = await getOrder(deps.store, data.orderId);
    if (!found) throw new PermanentJobError(`order ${data.orderId} does not exist`);
    let order = await markPlacing(deps.store, found.id);
    if (!order) {
      log.info({ status: found.status }, "order already moved on; nothing to place");
      return;
    }
    // First run: post the message, or (a resubmission) turn it back to "placing". Retries keep "retrying".
    if (!order.slackMessageTs || job.attempt === 1) order = await publish(order, { kind: "placing" }, log);

    const profile: Profile | undefined = deps.customer.profile(order.profile);
    if (!profile) {
      return fail(
        order,
        {
          code: "UNKNOWN_PROFILE",
          message: `the profile "${order.profile}" is no longer in order-desk.config.yml`,
        },
        log,
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
          code: "ENVIRONMENT_MISMATCH",
          message: `profile "${profile.name}" is for the ${profile.supplier.environment} supplier environment, but Order Desk is connected to ${deps.supplier.environment}; an admin has been alerted`,
        },
        log,
      );
    }

    const request = order.request;
    const secretId = profile.apiKeySecretId ?? deps.defaultSecretId;
    try {
      const result = await withApiKey(
        deps.apiKeys,
        secretId,
        (apiKey) => deps.supplier.createOrder(request, { apiKey, signal: job.signal }),
        { onUnauthorized: alertUnauthorized, logger: log },
      );
      const placed = await markPlaced(deps.store, order.id, {
        correlationId: result.correlationId,
        placedEarlier: result.placedEarlier,
      });
      log.info({ correlationId: result.correlationId, placedEarlier: result.placedEarlier }, "order placed");
      const shown = await publish(placed ?? order, { kind: "placed" }, log);
      await deps.onPlaced?.(shown);
    } catch (error) {
      if (job.signal.aborted) throw error; // shutting down or timed out: the queue runs it again
      await handleFailure(order, error, job, log);
    }
  };

  async function handleFailure(
    order: Order,
    error: unknown,
    job: JobContext<unknown>,
    log: Logger,
  ): Promise<void> {
    if (error instanceof DuplicateOrderError && order.lastError?.maybePlaced === true) {
      // An earlier run timed out or hit a 5xx after sending: the supplier has our order under this number.
      const placed = await markPlaced(deps.store, order.id, { correlationId: null, placedEarlier: true });
      log.warn("DUPLICATE_ORDER after an uncertain earlier attempt: treating the order as placed");
      await publish(placed ?? order, { kind: "placed" }, log);
      return;
    }
    if (
      error instanceof SupplierValidationError ||
      error instanceof LocalValidationError ||
      error instanceof DuplicateOrderError
    ) {
      const rejected = await markRejected(deps.store, order.id, {
        code: error instanceof LocalValidationError ? "VALIDATION_FAILED" : error.code,
        message: error.message,
        ...(error instanceof DuplicateOrderError ? {} : { details: error.details }),
      });
      log.info({ code: error.code }, "the supplier rejected the order");
      await publish(rejected ?? order, { kind: "rejected" }, log);
      return;
    }
    if (isTransient(error)) {
      const maybePlaced = mayHaveReachedSupplier(error) || order.lastError?.maybePlaced === true;
      const updated =
        (await recordAttemptError(deps.store, order.id, {
          kind: "retrying",
          maybePlaced,
          attempt: job.attempt,
          ...errorRecord(error),
        })) ?? order;
      if (job.isFinalAttempt) {
        log.error({ err: error }, "placement retries exhausted");
        return fail(updated, { ...errorRecord(error), maybePlaced, retriesExhausted: true }, log);
      }
      await publish(updated, { kind: "retrying", reason: retryReason(error) }, log);
      const retryAfterMs = (error as { retryAfterMs?: unknown }).retryAfterMs;
      if (error instanceof RateLimitedError && typeof retryAfterMs === "number") {
        throw new RetryLaterError(retryAfterMs, "the supplier rate-limited us", { cause: error });
      }
      throw error;
    }
    if (
      error instanceof KeyEnvironmentMismatchError ||
      error instanceof MalformedApiKeyError ||
      isSecretsError(error)
    ) {
      await deps.notifier
        .alertAdmins({ key: `key:${error.code}`, title: "Supplier API key problem", text: error.message })
        .catch((e) => log.warn({ err: e }, "admin alert failed"));
    }
    log.error({ err: error }, "placement failed and cannot succeed by retrying");
    return fail(order, errorRecord(error), log);
  }
}
