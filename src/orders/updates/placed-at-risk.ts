/**
 * An order placed knowing it would arrive after its needed-by date (the agent submitted anyway, a workflow step)
 * is at risk from the start. Once the supplier has accepted it, it is told like an estimate that slipped: one
 * thread reply "At risk: expected …, needed by …", the requester's DM and the admins' "Needs attention" item.
 * Told at placement, not at submission, so that an order the supplier refuses (or an approver rejects) never
 * leaves an item open for an order that does not exist.
 *
 * Called after every placement run (repeated runs are safe): the notice is recorded, and the post-update job that
 * posts it enqueued, in one transaction under the order's row lock, only when the order has never had one.
 */
import { jobId } from "../../jobs/ids.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { Store } from "../../store/db.ts";
import { hasNoticeOfKind } from "../../store/repositories/order-risk.ts";
import { getOrderForUpdate } from "../../store/repositories/orders.ts";
import type { Order } from "../model/order.ts";
import { recordRiskChange } from "./apply-dates.ts";
import { enqueuePostUpdate } from "./enqueue.ts";

export async function tellPlacedAtRisk(
  deps: { store: Store; jobs: Pick<Jobs, "send"> },
  order: Order,
): Promise<boolean> {
  if (!order.atRiskSince) return false;
  return deps.store.transaction(async (tx) => {
    const locked = await getOrderForUpdate(tx, order.id);
    // An estimate from the supplier may have come first and put it back in time, or it may be delivered already.
    if (!locked?.atRiskSince || !locked.expectedDelivery || locked.deliveredOn) return false;
    if (await hasNoticeOfKind(tx, order.id, "at_risk")) return false;
    await recordRiskChange(tx, locked, "at_risk", locked.expectedDelivery, locked.atRiskSince);
    const eventId = `placed-at-risk:${order.id}`;
    await enqueuePostUpdate(
      deps.jobs,
      { orderId: order.id, eventId },
      { tx, id: jobId(QUEUES.postUpdate, "placed-at-risk", order.id) },
    );
    return true;
  });
}
