/**
 * DMing the approvers of an order's round who have not been asked yet: by the request job, and again by the
 * reminder when it falls due (an approver whose DM failed until the request job gave up gets it then). Nobody is
 * asked twice in a round: each DM is claimed first, one claim per approver and round shared by both jobs
 * (src/store/repositories/approval-dm-claims.ts), so a request job and a reminder at the same moment never both DM
 * the same approver; the one that did not get the claim leaves that approver to the other (`held`: check again
 * later, in case the other's send fails and it gives the claim back). The claim is also the DM's attempt, recorded
 * before Slack is called: a DM whose answer was lost (a timeout, a kill) is looked for by the next attempt instead
 * of being sent again. An approver Slack will never DM (`account_inactive`, `user_not_found`…) is recorded as
 * unreachable: not tried again for this round, and the admins are told once.
 */
import type { Logger } from "pino";
import type { Store } from "../../store/db.ts";
import {
  approvalDmHeld,
  claimApprovalDm,
  recordApprovalMessage,
  releaseApprovalDm,
} from "../../store/repositories/approval-dm-claims.ts";
import {
  listApprovalMessages,
  listUnreachableApprovers,
  recordApprovalDmFailure,
} from "../../store/repositories/approvals.ts";
import { ApproverUnreachableError } from "../errors.ts";
import type { Order } from "../model/order.ts";
import type { OrderNotifier } from "../ports.ts";
import type { ApprovalNotifier } from "./ports.ts";

export interface AskDeps {
  store: Store;
  approvals: Pick<ApprovalNotifier, "ask">;
  notifier: Pick<OrderNotifier, "alertAdmins">;
}

export interface AskOptions {
  /** How old another run's claim must be before this one takes it over (the longest a run may take). */
  leaseMs: number;
  /** The reminder asks: a DM sent now is the approver's reminder (recorded as reminded, none follows). */
  asReminder?: boolean;
}

export interface AskResult {
  /** Approvers DMed by this call. */
  asked: string[];
  /** Approvers whose DM failed in a way that may pass (retried by the job, or by the reminder when due). */
  failed: string[];
  /** The first such failure, to rethrow so the job is retried. */
  failure: unknown;
  /** Approvers another run is DMing right now: not asked by this call; the caller checks again later. */
  held: string[];
}

export async function askApprovers(
  deps: AskDeps,
  order: Order,
  approvers: readonly string[],
  log: Logger,
  signal: AbortSignal,
  options: AskOptions,
): Promise<AskResult> {
  const done = new Set((await listApprovalMessages(deps.store, order.id)).map((m) => m.approver));
  const unreachable = await listUnreachableApprovers(deps.store, order.id);
  const result: AskResult = { asked: [], failed: [], failure: null, held: [] };
  const requestedAt = order.approval?.requestedAt;
  if (!requestedAt) return result;
  const asReminder = options.asReminder ?? false;
  for (const approver of approvers) {
    if (done.has(approver) || unreachable.has(approver)) continue;
    const claim = await claimApprovalDm(deps.store, {
      orderId: order.id,
      approver,
      requestedAt,
      leaseMs: options.leaseMs,
      asReminder,
    });
    if (!claim) {
      // Another run holds it (or the DM went out, or the order stopped waiting since the list was read).
      if (await approvalDmHeld(deps.store, order.id, approver, asReminder)) result.held.push(approver);
      continue;
    }
    try {
      const dm = await deps.approvals.ask(order, approver, { signal, earlierAttempt: claim.earlierAttempt });
      await recordApprovalMessage(deps.store, { orderId: order.id, approver, ...dm });
      result.asked.push(approver);
    } catch (error) {
      await releaseApprovalDm(deps.store, order.id, approver);
      if (signal.aborted) throw error;
      if (error instanceof ApproverUnreachableError) {
        await unreachableApprover(deps, order, error, log);
        continue;
      }
      log.warn({ err: error, approver }, "could not DM an approver");
      result.failed.push(approver);
      result.failure ??= error;
    }
  }
  return result;
}

async function unreachableApprover(
  deps: AskDeps,
  order: Order,
  error: ApproverUnreachableError,
  log: Logger,
): Promise<void> {
  const first = await recordApprovalDmFailure(deps.store, {
    orderId: order.id,
    approver: error.approver,
    error: error.slackError,
  });
  log.warn(
    { approver: error.approver, slackError: error.slackError },
    "an approver cannot be DMed; not retried",
  );
  if (!first) return;
  await deps.notifier
    .alertAdmins({
      key: `approver-unreachable:${order.id}:${error.approver}`,
      title: `An approver of order ${order.externalDocumentNumber} cannot be reached`,
      text: [
        "Slack refuses to DM ",
        { user: error.approver },
        ` (${error.slackError}), an approver of the profile "${order.profile}", so they were not asked to approve order ${order.externalDocumentNumber}; the other approvers were. Remove them from the profile's approvers (approval: approvers or approverGroups in order-desk.config.yml), or reactivate their Slack account.`,
      ],
    })
    .catch((alertError: unknown) => log.warn({ err: alertError }, "admin alert failed"));
}
