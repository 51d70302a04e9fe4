import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { checkApprover } from "../../../orders/approvals/decide.ts";
import { rejectReasonModal } from "../../blocks/approval.ts";
import type { SlackContext } from "../../context.ts";
import { notifyUser, tellViewFailed } from "../../view-failures.ts";

/** Order ids are UUIDs (or our test ids): anything longer is not one, and is not even looked up. */
const MAX_ORDER_ID = 100;

/** The order id a button carries: a lookup key only, never proof of anything. */
export function approvalOrderId(value: unknown): string {
  return typeof value === "string" && value.length <= MAX_ORDER_ID ? value : "";
}

/**
 * "Reject" in an approver's DM (or App Home): after the same checks as a decision (so a non-approver or the
 * requester is told at once, without a form), opens the modal asking for the reason. Its submit checks everything
 * again (views/reject-reason.ts).
 */
export function rejectOrder(ctx: SlackContext) {
  return async ({
    ack,
    body,
    action,
    client,
    respond,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const userId = body.user.id;
    const target = { userId, respond: body.response_url ? respond : undefined, channelId: body.channel?.id };
    const checked = await checkApprover(ctx.approvals, approvalOrderId(action.value), userId);
    if ("refused" in checked) {
      await notifyUser(client, target, checked.message, ctx.logger);
      return;
    }
    try {
      await client.views.open({ trigger_id: body.trigger_id, view: rejectReasonModal(checked.order) });
    } catch (error) {
      await tellViewFailed(client, target, error, {
        action: "open",
        retry: "click Reject again",
        logger: ctx.logger,
      });
    }
  };
}
