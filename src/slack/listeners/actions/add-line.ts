import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { emptyLine } from "../../../orders/draft.ts";
import { MAX_MODAL_LINES } from "../../blocks/order-modal-lines.ts";
import type { SlackContext } from "../../context.ts";
import { updateOrderModal } from "../../form-actions.ts";
import { takeLineKey } from "../../metadata.ts";

/** "Add line": one more empty line under the others, everything typed kept. */
export function addLine(ctx: SlackContext) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs) => {
    await ack();
    if (!body.view) return;
    const clicked = { userId: body.user.id, retry: "click Add line again" };
    await updateOrderModal(ctx, client, body.view, clicked, (form, meta) => {
      if (form.lineKeys.length >= MAX_MODAL_LINES) {
        return {
          form,
          meta,
          notice: `Only ${MAX_MODAL_LINES} lines fit in one form; place a second order for the rest.`,
        };
      }
      const { key, meta: next } = takeLineKey(meta);
      return {
        meta: next,
        form: {
          lineKeys: [...form.lineKeys, key],
          draft: { ...form.draft, lines: [...form.draft.lines, emptyLine()] },
        },
      };
    });
  };
}
