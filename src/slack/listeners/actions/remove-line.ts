import type {
  AllMiddlewareArgs,
  BlockAction,
  SlackActionMiddlewareArgs,
  StaticSelectAction,
} from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { updateOrderModal } from "../../form-actions.ts";

/** "Remove line…": drops the chosen line; the others keep their blocks and what was typed in them. */
export function removeLine(ctx: SlackContext) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<StaticSelectAction>> & AllMiddlewareArgs) => {
    await ack();
    const key = action.selected_option?.value;
    if (!body.view || !key) return;
    const clicked = { userId: body.user.id, retry: "choose the line to remove again" };
    await updateOrderModal(ctx, client, body.view, clicked, (form, meta) => {
      const index = form.lineKeys.indexOf(key);
      if (index < 0 || form.lineKeys.length <= 1) return { form, meta };
      return {
        meta,
        form: {
          lineKeys: form.lineKeys.filter((_, i) => i !== index),
          draft: { ...form.draft, lines: form.draft.lines.filter((_, i) => i !== index) },
        },
      };
    });
  };
}
