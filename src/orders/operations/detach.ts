/**
 * Detach: an admin undoes a wrong "Attach to order…" from the attach's alert, exactly once, in one transaction:
 * the correlation id stops being the order's (its alias row is removed, or, when the attach made it the order's
 * own because it had none, the order's correlation id goes back to null); the order's events of that correlation
 * id are orphans again, except those that name the order's number themselves (the order would have had them
 * anyway); a new orphan item is opened for them (its alert posted by a job); the attach's item records who
 * detached and when, and its alert's rewrite is enqueued (the same job then leaves a note in the order's thread
 * when some of them had been posted there: Slack keeps those replies). Later events of that correlation id are
 * orphans again, like any of an unknown order.
 *
 * The caller has checked that `by` is an admin; the item id is only a lookup key (from a button's value).
 */
import { randomUUID } from "node:crypto";
import type { Queryable } from "../../store/db.ts";
import { getAttentionForUpdate, markDetached, openAttention } from "../../store/repositories/attention.ts";
import { detachEvents } from "../../store/repositories/events.ts";
import { forgetAttachedCorrelation } from "../../store/repositories/order-aliases.ts";
import { getOrderForUpdate } from "../../store/repositories/orders.ts";
import type { ClickDeadline } from "../click-deadline.ts";
import type { OperatorDeps } from "./act.ts";
import { enqueueAlertRewrite } from "./outcome-job.ts";
import type { ActionOutcome, AttentionItem, StoredAlert } from "./types.ts";

export interface DetachRequest {
  itemId: string;
  /** The admin's Slack user id (checked by the caller). */
  by: string;
  deadline?: ClickDeadline;
}

/** The alert of the new orphan item: where the updates were, and that they wait for the right order. */
function detachedAlert(correlationId: string, from: string, events: number): StoredAlert {
  const n = `${events} supplier update${events === 1 ? "" : "s"}`;
  return {
    title: "Supplier updates for an unknown order",
    text:
      `${n} for correlation id ${correlationId} ${events === 1 ? "was" : "were"} detached from order ${from} ` +
      "(attached by mistake) and match no order here again. Attach them to the right order, or Ignore them " +
      "(see docs/webhooks.md, Orphans).",
  };
}

export async function runDetach(
  deps: OperatorDeps & { newId?: () => string },
  request: DetachRequest,
): Promise<ActionOutcome> {
  return deps.store.transaction(async (tx): Promise<ActionOutcome> => {
    const item = await getAttentionForUpdate(tx, request.itemId);
    if (!item) return { kind: "refused", reason: "this alert is not known to Order Desk (any more)" };
    if (item.kind !== "orphan_events" || item.resolution !== "attached") {
      return { kind: "refused", reason: "this alert does not offer that action" };
    }
    if (item.detachedAt !== null) return { kind: "already", item };
    const done = await detach(deps, tx, item);
    if ("refused" in done) return { kind: "refused", reason: done.refused };
    const detached = await markDetached(tx, item.id, { by: request.by, detail: done.detail });
    // The row is locked: nobody can have detached it since it was read.
    if (!detached) throw new Error(`attention item ${item.id} was detached while locked`);
    await enqueueAlertRewrite(deps.jobs, tx, detached);
    request.deadline?.commit();
    return { kind: "done", item: detached };
  });
}

/** Does the detach's writes and says what came of them, or why it cannot be done (nothing written then). */
async function detach(
  deps: OperatorDeps & { newId?: () => string },
  tx: Queryable,
  item: AttentionItem,
): Promise<{ refused: string } | { detail: Record<string, unknown> }> {
  const detail = item.resolutionDetail ?? {};
  const correlationId = item.subject;
  if (detail.correlation === "already") {
    return {
      refused: `correlation id ${correlationId} is the order's own (from its placement): its updates belong to it`,
    };
  }
  const order = typeof detail.orderId === "string" ? await getOrderForUpdate(tx, detail.orderId) : null;
  if (!order) return { refused: "the order these updates were attached to no longer exists" };
  const undone = await forgetAttachedCorrelation(tx, {
    correlationId,
    orderId: order.id,
    attentionId: item.id,
    madeOwn: detail.correlation === "own",
  });
  // Attached before attaches recorded what they did: the order's own correlation id may have been its own before.
  if (undone === null && detail.correlation === undefined && order.correlationId === correlationId) {
    return {
      refused:
        `Order Desk cannot tell whether correlation id ${correlationId} was order ${order.externalDocumentNumber}'s ` +
        "own before this attach (it was attached by an earlier version), so it left it as it is; see " +
        "docs/operations.md, Detach",
    };
  }
  const { ids, posted } = await detachEvents(tx, {
    correlationId,
    orderId: order.id,
    externalDocumentNumber: order.externalDocumentNumber,
  });
  let reopened: AttentionItem | null = null;
  if (ids.length > 0) {
    const opened = await openAttention(tx, {
      id: (deps.newId ?? randomUUID)(),
      kind: "orphan_events",
      subject: correlationId,
      alert: detachedAlert(correlationId, order.externalDocumentNumber, ids.length),
    });
    reopened = opened.item;
    // Its alert is posted by the job (the item is open and not posted yet).
    if (opened.created) await enqueueAlertRewrite(deps.jobs, tx, reopened);
  }
  return {
    detail: {
      orderId: order.id,
      externalDocumentNumber: order.externalDocumentNumber,
      events: ids.length,
      posted,
      correlation: undone,
      reopenedItemId: reopened?.id ?? null,
    },
  };
}
