/** What waits for one approver: the orders of the profiles they approve (now), not those they asked for (requested or resubmitted), oldest first. */
import type { Store } from "../../store/db.ts";
import { listAwaitingApproval } from "../../store/repositories/approvals.ts";
import type { Order } from "../model/order.ts";
import type { ApprovalDeps } from "./decide.ts";
import { roundRequesters } from "./status.ts";

export async function awaitingApprovalBy(
  store: Store,
  deps: Pick<ApprovalDeps, "customer" | "membership">,
  userId: string,
  limit = 10,
): Promise<Order[]> {
  const profiles: string[] = [];
  for (const profile of deps.customer.config.profiles) {
    const approval = profile.approval;
    if (!approval) continue;
    const membership = await deps.membership.isAmong(
      { users: approval.approvers, groups: approval.approverGroups },
      userId,
    );
    if (membership.member) profiles.push(profile.name);
  }
  // One more than shown per own order left out, so the list is full whenever there are enough.
  const orders = await listAwaitingApproval(store, profiles, limit * 2);
  return orders.filter((o) => !roundRequesters(o).includes(userId)).slice(0, limit);
}
