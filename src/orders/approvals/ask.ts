/**
 * DMing the approvers of an order's round who have not been asked yet: by the request job, and again by the
 * reminder when it falls due (an approver whose DM failed until the request job gave up gets it then). Each DM
 * is recorded as attempted before Slack is called and recorded again once Slack took it, so nobody is asked twice:
 * a DM whose answer was lost (a timeout, a kill) is looked for by the next attempt instead of being sent again. An approver Slack will never DM (`account_inactive`,
 * `user_not_found`…) is recorded as unreachable: not tried again for this round, and the admins are told once.
 */
import type { Logger } from "pino";
import type { Store } from "../../store/db.ts";
import {
  listApprovalMessages,
  listUnreachableApprovers,
  markApprovalDmAttempted,
  recordApprovalDmFailure,
  recordApprovalMessage,
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

export interface AskResult {
  /** Approvers DMed by this call. */
  asked: string[];
  /** Approvers whose DM failed in a way that may pass (retried by the job, or by the reminder when due). */
  failed: string[];
  /** The first such failure, to rethrow so the job is retried. */
  failure: unknown;
}

export async function askApprovers(
  deps: AskDeps,
  order: Order,
  approvers: readonly string[],
  log: Logger,
  signal: AbortSignal,
): Promise<AskResult> {
  const done = new Set((await listApprovalMessages(deps.store, order.id)).map((m) => m.approver));
  const unreachable = await listUnreachableApprovers(deps.store, order.id);
  const result: AskResult = { asked: [], failed: [], failure: null };
  for (const approver of approvers) {
    if (done.has(approver) || unreachable.has(approver)) continue;
    try {
      const earlierAttempt = await markApprovalDmAttempted(deps.store, order.id, approver);
      const dm = await deps.approvals.ask(order, approver, { signal, earlierAttempt });
      await recordApprovalMessage(deps.store, { orderId: order.id, approver, ...dm });
      result.asked.push(approver);
    } catch (error) {
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
