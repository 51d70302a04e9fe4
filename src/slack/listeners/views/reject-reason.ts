import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { decideApproval } from "../../../orders/approvals/decide.ts";
import { ACTION, BLOCK } from "../../blocks/ids.ts";
import { buildNoticeModal } from "../../blocks/order-modal.ts";
import type { SlackContext } from "../../context.ts";
import { approvalOrderId } from "../actions/reject-order.ts";

/**
 * Submit of the reject modal. The reason is required (an empty one is answered on its field); the order id in
 * `private_metadata` is only a lookup key: who submits is checked again as an approver of that order's profile,
 * not its requester, and the order must still wait. Decided before `ack`, so the modal says if it was too late.
 */
export function rejectReason(ctx: SlackContext) {
  return async ({ ack, body, view }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const typed = view.state?.values?.[BLOCK.rejectReason]?.[ACTION.value]?.value;
    const reason = typeof typed === "string" ? typed : "";
    try {
      const result = await decideApproval(ctx.approvals, {
        orderId: approvalOrderId(view.private_metadata),
        userId: body.user.id,
        outcome: "rejected",
        reason,
      });
      if (!("refused" in result)) return await ack();
      if (result.refused === "reason_required") {
        return await ack({ response_action: "errors", errors: { [BLOCK.rejectReason]: result.message } });
      }
      await ack({ response_action: "update", view: buildNoticeModal("Reject order", result.message) });
    } catch (error) {
      ctx.logger.error({ err: error }, "could not record a rejection");
      await ack({
        response_action: "errors",
        errors: {
          [BLOCK.rejectReason]:
            "Order Desk could not save the rejection just now; nothing changed. Submit again in a moment.",
        },
      });
    }
  };
}
