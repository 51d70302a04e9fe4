/**
 * Applies what a supplier event says about an order's dates, inside the transaction that applies the event
 * (apply-event.ts), under the order's row lock: the supplier's estimate becomes the expected delivery, an
 * estimate past the needed-by date makes the order at risk (and one back in time clears it), a delivery records
 * how late it was. Each change adds one date notice (posted once by the post-update job, notices.ts) and opens or
 * resolves the order's "Needs attention" item; applying the same event again finds nothing changed.
 */
import { randomUUID } from "node:crypto";
import type { Queryable } from "../../store/db.ts";
import {
  findOpenAttentionForUpdate,
  openAttention,
  resolveAttention,
} from "../../store/repositories/attention.ts";
import {
  addDateNotice,
  hasNoticeOfKind,
  setDelivered,
  setOrderDates,
} from "../../store/repositories/order-risk.ts";
import { getOrderForUpdate } from "../../store/repositories/orders.ts";
import { formatDay, type IsoDate } from "../dates/business-days.ts";
import { lateDaysOf, type RiskChange, riskChange } from "../dates/review.ts";
import type { Order } from "../model/order.ts";

/** Who resolves an at-risk item when the order itself is back in time or delivered. */
export const RESOLVED_BY_ORDER_DESK = "order-desk";

export interface DatesSeen {
  /** The supplier's estimate of delivery, when the event gave a usable one. */
  estimate?: IsoDate | null;
  /** The order's delivery day, when the event completes its delivery. */
  deliveredOn?: IsoDate | null;
  /** The event's occurredAt: when the change happened. */
  at: Date;
}

async function resolveAtRisk(tx: Queryable, orderId: string, why: string): Promise<void> {
  const item = await findOpenAttentionForUpdate(tx, "at_risk_order", orderId);
  if (item) {
    await resolveAttention(tx, item.id, {
      resolution: "obsolete",
      by: RESOLVED_BY_ORDER_DESK,
      detail: { reason: why },
    });
  }
}

/**
 * Records a change of the order's risk (its dates already stored): the notice to tell (posted once by the
 * post-update job) and the admins' "Needs attention" item, opened when it goes at risk, closed when it is back.
 */
export async function recordRiskChange(
  tx: Queryable,
  order: Order,
  change: Exclude<RiskChange, null>,
  expected: IsoDate,
  at: Date,
): Promise<void> {
  // Back in time before anyone was told it was at risk (placed at risk, the supplier's first estimate in time):
  // there is nothing to take back.
  const told = change === "at_risk" || (await hasNoticeOfKind(tx, order.id, "at_risk"));
  if (told) {
    await addDateNotice(tx, {
      orderId: order.id,
      kind: change,
      expectedDelivery: expected,
      neededBy: order.neededBy,
      at,
    });
  }
  if (change === "back_on_track") {
    await resolveAtRisk(tx, order.id, "back on track");
    return;
  }
  await openAttention(tx, {
    id: randomUUID(),
    kind: "at_risk_order",
    subject: order.id,
    alert: {
      title: `Order ${order.externalDocumentNumber} may arrive after it is needed`,
      text: `Expected ${formatDay(expected)}, needed by ${formatDay(order.neededBy ?? expected)}.`,
    },
  });
}

/** Applies `seen`; returns the order when this made it delivered (once per order), null otherwise. */
export async function applyDates(tx: Queryable, orderId: string, seen: DatesSeen): Promise<Order | null> {
  let order = await getOrderForUpdate(tx, orderId);
  if (!order) return null;
  const estimate = seen.estimate ?? null;
  if (estimate !== null && !order.deliveredOn && estimate !== order.expectedDelivery) {
    const change = riskChange(Boolean(order.atRiskSince), estimate, order.neededBy);
    const atRiskSince =
      change === "at_risk" ? seen.at : change === "back_on_track" ? null : (order.atRiskSince ?? null);
    order =
      (await setOrderDates(tx, orderId, {
        expectedDelivery: estimate,
        expectedDeliverySource: "supplier",
        atRiskSince,
      })) ?? order;
    if (change !== null) await recordRiskChange(tx, order, change, estimate, seen.at);
  }
  const deliveredOn = seen.deliveredOn ?? null;
  if (deliveredOn !== null && !order.deliveredOn) {
    const lateDays = lateDaysOf(order.neededBy, deliveredOn);
    const delivered = await setDelivered(tx, orderId, deliveredOn, lateDays);
    if (delivered && lateDays !== null && lateDays > 0) {
      await addDateNotice(tx, {
        orderId,
        kind: "delivered_late",
        expectedDelivery: order.expectedDelivery,
        neededBy: order.neededBy,
        lateDays,
        at: seen.at,
      });
    }
    if (delivered && order.atRiskSince) await resolveAtRisk(tx, orderId, "delivered");
    return delivered;
  }
  return null;
}
