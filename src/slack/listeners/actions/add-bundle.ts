import type {
  AllMiddlewareArgs,
  BlockAction,
  SlackActionMiddlewareArgs,
  StaticSelectAction,
} from "@slack/bolt";
import { type DraftLine, isBlankLine } from "../../../orders/draft.ts";
import { MAX_MODAL_LINES } from "../../blocks/order-modal-lines.ts";
import type { SlackContext } from "../../context.ts";
import { updateOrderModal } from "../../form-actions.ts";
import { takeLineKey } from "../../metadata.ts";

/** "Add bundle…": the bundle's lines replace trailing blank lines and follow the lines already chosen. */
export function addBundle(ctx: SlackContext) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<StaticSelectAction>> & AllMiddlewareArgs) => {
    await ack();
    const bundle = ctx.customer.config.bundles[Number(action.selected_option?.value)];
    if (!body.view || !bundle) return;
    const clicked = { userId: body.user.id, retry: "choose the bundle again" };
    await updateOrderModal(ctx, client, body.view, clicked, (form, startMeta) => {
      let meta = startMeta;
      const lines: DraftLine[] = [...form.draft.lines];
      const keys = [...form.lineKeys];
      while (lines.length > 0 && isBlankLine(lines[lines.length - 1]!)) {
        lines.pop();
        keys.pop();
      }
      let added = 0;
      for (const l of bundle.lines) {
        if (keys.length >= MAX_MODAL_LINES) break;
        const taken = takeLineKey(meta);
        meta = taken.meta;
        keys.push(taken.key);
        lines.push({ itemNumber: l.itemNumber, quantity: String(l.quantity), comment: l.comment ?? "" });
        added++;
      }
      const notice =
        added < bundle.lines.length
          ? `Only ${MAX_MODAL_LINES} lines fit in one form: ${bundle.lines.length - added} line(s) of "${bundle.name}" were left out; place a second order for them.`
          : undefined;
      return {
        meta,
        form: { lineKeys: keys, draft: { ...form.draft, lines } },
        ...(notice ? { notice } : {}),
      };
    });
  };
}
