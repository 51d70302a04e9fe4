/**
 * The operators' actions, each exactly once: the item is locked, checked open, its state change made (with the
 * job it needs), the item resolved and its alert's rewrite enqueued, all in one transaction. A second click (the same admin twice, two admins)
 * waits for the first and finds the item resolved: it answers who acted, and does nothing again.
 *
 * The caller has checked that `by` is an admin (src/orders/admins.ts); the item id is only a lookup key (it came
 * back from Slack in a button's value), so an unknown id or an action the item's kind does not offer is refused.
 */
import { jobId } from "../../jobs/ids.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { Queryable, Store } from "../../store/db.ts";
import { getAttentionForUpdate, ignoreSummarized } from "../../store/repositories/attention.ts";
import { attachOrphans } from "../../store/repositories/events.ts";
import { clearPostErrors, requeueFailedOrder } from "../../store/repositories/operator-actions.ts";
import { findOrderIdByCorrelationId, insertOrderAlias } from "../../store/repositories/order-aliases.ts";
import {
  findOrdersByExternalDocumentNumber,
  getOrder,
  setCorrelationId,
} from "../../store/repositories/orders.ts";
import type { ClickDeadline } from "../click-deadline.ts";
import { isRejected } from "../model/order.ts";
import { placeOrderData } from "../submit.ts";
import { enqueuePostUpdate } from "../updates/enqueue.ts";
import { resolveAndShow } from "./resolve.ts";
import {
  ACTIONS_OF,
  type ActionOutcome,
  type AttachedCorrelation,
  type AttentionItem,
  type OperatorAction,
  RESOLUTION_OF,
} from "./types.ts";

export interface OperatorDeps {
  store: Store;
  jobs: Pick<Jobs, "send" | "settleFailed">;
  /** The app's clock (default the real one): when a retried order was queued again. */
  now?: () => Date;
  /** Delay before posting attached events (the webhook settle delay; default 0). */
  settleMs?: number;
}

export interface ActionRequest {
  itemId: string;
  action: OperatorAction;
  /** The admin's Slack user id (checked by the caller). */
  by: string;
  /** `attach_orphans`: the order's number (externalDocumentNumber) as typed. */
  orderNumber?: string;
  /** A click's bound (src/orders/click-deadline.ts): past it, the action rolls back and the admin is told. */
  deadline?: ClickDeadline;
}

type Effect =
  | { kind: "done"; detail?: Record<string, unknown> }
  | { kind: "obsolete"; reason: string }
  | { kind: "invalid"; reason: string };

const ORDER_NUMBER_MAX = 100;

export async function runOperatorAction(deps: OperatorDeps, request: ActionRequest): Promise<ActionOutcome> {
  return deps.store.transaction(async (tx): Promise<ActionOutcome> => {
    const item = await getAttentionForUpdate(tx, request.itemId);
    if (!item) return { kind: "refused", reason: "this alert is not known to Order Desk (any more)" };
    if (!ACTIONS_OF[item.kind].includes(request.action)) {
      return { kind: "refused", reason: "this alert does not offer that action" };
    }
    if (item.resolvedAt !== null) return { kind: "already", item };
    const effect = await apply(deps, tx, item, request);
    if (effect.kind === "invalid") return effect;
    const resolved = await resolveAndShow(deps.jobs, tx, item.id, {
      resolution: effect.kind === "obsolete" ? "obsolete" : RESOLUTION_OF[request.action],
      by: request.by,
      detail: effect.kind === "obsolete" ? { reason: effect.reason } : effect.detail,
    });
    // The row is locked: nobody can have resolved it since it was read.
    if (!resolved) throw new Error(`attention item ${item.id} was resolved while locked`);
    request.deadline?.commit();
    return effect.kind === "obsolete"
      ? { kind: "obsolete", item: resolved, reason: effect.reason }
      : { kind: "done", item: resolved };
  });
}

async function apply(
  deps: OperatorDeps,
  tx: Queryable,
  item: AttentionItem,
  request: ActionRequest,
): Promise<Effect> {
  switch (request.action) {
    case "retry_order":
      return retryOrder(deps, tx, item);
    case "retry_posting":
      return retryPosting(deps, tx, item);
    case "attach_orphans":
      return attach(deps, tx, item, request);
    case "reprocess_events":
      return reprocess(deps, tx, item, request);
    case "ignore_orphans":
      // "Ignore all" on a storm's summary closes every orphan item it stands for with it.
      if (item.kind === "orphan_summary") {
        return { kind: "done", detail: { groups: await ignoreSummarized(tx, item.id, request.by) } };
      }
      return { kind: "done" };
    case "mark_handled":
      return { kind: "done" };
  }
}

/**
 * The unreadable deliveries are read again by a durable job (there may be many, more than a click may wait for),
 * all of them, so an order's events of several shapes are posted in order; the job's id is the item's, so the
 * click runs it once. What is still unreadable then gets a new item.
 */
async function reprocess(
  deps: OperatorDeps,
  tx: Queryable,
  item: AttentionItem,
  request: ActionRequest,
): Promise<Effect> {
  await deps.jobs.send(
    QUEUES.reprocessEvents,
    { shapeKey: item.subject, itemId: item.id, by: request.by },
    { id: jobId(QUEUES.reprocessEvents, item.id), tx },
  );
  return { kind: "done", detail: { shapeKey: item.subject } };
}

/** failed → queued and one new placement job, whose id is the item's: one run per item, ever. */
async function retryOrder(deps: OperatorDeps, tx: Queryable, item: AttentionItem): Promise<Effect> {
  const order = await requeueFailedOrder(tx, item.subject);
  if (!order) {
    const now = await getOrder(tx, item.subject);
    const reason = !now
      ? "the order no longer exists"
      : isRejected(now)
        ? "the supplier refused this order's request: it is fixed and resubmitted from its message (Fix and resubmit), not retried"
        : `the order is no longer failed (it is ${now.status})`;
    return { kind: "obsolete", reason };
  }
  const data = placeOrderData(order.id, (deps.now ?? (() => new Date()))());
  await deps.jobs.send(QUEUES.placeOrder, data, {
    id: jobId(QUEUES.placeOrder, order.id, "operator-retry", item.id),
    tx,
  });
  // The placement that failed is taken over by this one: it no longer counts as a failed job (doctor, jobs list).
  await deps.jobs.settleFailed(QUEUES.placeOrder, order.id, {
    note: `retried from Slack (attention item ${item.id})`,
    tx,
  });
  return { kind: "done", detail: { orderId: order.id } };
}

/** The order's unposted events get one new posting run; the worker posts them oldest first, each once. */
async function retryPosting(deps: OperatorDeps, tx: Queryable, item: AttentionItem): Promise<Effect> {
  const ids = await clearPostErrors(tx, item.subject);
  const first = ids[0];
  if (first === undefined)
    return { kind: "obsolete", reason: "every update of the order was posted meanwhile" };
  await enqueuePostUpdate(
    deps.jobs,
    { orderId: item.subject, eventId: first },
    { tx, id: jobId(QUEUES.postUpdate, "operator-retry", item.id) },
  );
  return { kind: "done", detail: { orderId: item.subject, events: ids.length } };
}

/**
 * The orphans of the item's correlation id join the order with that number, and their posting is enqueued. The
 * supplier's later events with that correlation id must find the order on their own: an order without a
 * correlation id takes this one; an order that has its own gets this one as an alias (`order_aliases`), which
 * every matching of events to orders consults. A correlation id that belongs to another order meanwhile (its
 * placement was recorded, or another attach) is left to that order: its events follow in that order's thread.
 */
async function attach(
  deps: OperatorDeps,
  tx: Queryable,
  item: AttentionItem,
  request: ActionRequest,
): Promise<Effect> {
  const number = (request.orderNumber ?? "").trim();
  if (number === "" || number.length > ORDER_NUMBER_MAX) {
    return { kind: "invalid", reason: "Type the order's number (its external document number)." };
  }
  const orders = await findOrdersByExternalDocumentNumber(tx, number);
  const order = orders[0];
  if (!order) return { kind: "invalid", reason: `No order has the number ${number}.` };
  if (orders.length > 1) {
    const profiles = orders.map((o) => o.profile).join(", ");
    return {
      kind: "invalid",
      reason: `Orders of several profiles (${profiles}) have the number ${number}; it cannot be attached from here.`,
    };
  }
  const correlationId = item.subject;
  const owner = await findOrderIdByCorrelationId(tx, correlationId);
  if (owner !== null && owner !== order.id) {
    const other = await getOrder(tx, owner);
    return {
      kind: "obsolete",
      reason: `these updates belong to order ${other?.externalDocumentNumber ?? owner} (it has their correlation id); they follow in its thread`,
    };
  }
  const ids = await attachOrphans(tx, correlationId, order.id);
  const first = ids[0];
  if (first === undefined) {
    return { kind: "obsolete", reason: "the events were attached to an order meanwhile" };
  }
  // What the attach did with the correlation id, kept on the item: a Detach undoes exactly that (./detach.ts).
  let correlation: AttachedCorrelation = "already";
  if (owner === null) {
    // Not yet this order's: record it, so that later events are matched to the order at ingest. The order
    // takes it as its own only while it has none (a placement recorded meanwhile keeps its own).
    const adopted =
      order.correlationId === null && (await setCorrelationId(tx, order.id, correlationId)) !== null;
    if (!adopted) {
      await insertOrderAlias(tx, { correlationId, orderId: order.id, attentionId: item.id, by: request.by });
    }
    correlation = adopted ? "own" : "alias";
  }
  await enqueuePostUpdate(
    deps.jobs,
    { orderId: order.id, eventId: first },
    {
      tx,
      id: jobId(QUEUES.postUpdate, "operator-attach", item.id),
      ...(deps.settleMs !== undefined && { settleMs: deps.settleMs }),
    },
  );
  return {
    kind: "done",
    detail: {
      orderId: order.id,
      externalDocumentNumber: order.externalDocumentNumber,
      events: ids.length,
      correlation,
    },
  };
}
