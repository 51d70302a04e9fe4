import { orphanItemToAttach } from "../../../orders/operations/list.ts";
import { attachOrphansModal } from "../../blocks/attention.ts";
import type { SlackContext } from "../../context.ts";
import {
  itemIdOf,
  noticeTarget,
  type OperatorClickArgs,
  refusedToNonAdmin,
  STORE_DOWN,
  tell,
} from "../../operator-click.ts";
import { tellViewFailed } from "../../view-failures.ts";

/**
 * "Attach to order…" on orphan events: opens the modal asking for the order's number. Admins only; the submission
 * checks everything again (src/slack/listeners/views/attach-orphans-submission.ts).
 */
export function attentionAttachOrphans(ctx: SlackContext) {
  return async (args: OperatorClickArgs): Promise<void> => {
    const { ack, body, client } = args;
    await ack();
    const target = noticeTarget(args);
    const refused = await refusedToNonAdmin(ctx, body.user.id);
    if (refused) {
      await tell(ctx, client, target, refused);
      return;
    }
    let found: Awaited<ReturnType<typeof orphanItemToAttach>>;
    try {
      found = await orphanItemToAttach(ctx.store, itemIdOf(args.action.value));
    } catch (error) {
      ctx.logger.error({ err: error }, "could not read the attention item");
      await tell(ctx, client, target, STORE_DOWN);
      return;
    }
    if ("refused" in found) {
      await tell(
        ctx,
        client,
        target,
        found.refused === "handled"
          ? "Nothing was done: these events were already handled (see the alert)."
          : "Nothing was done: this alert is not known to Order Desk (any more).",
      );
      return;
    }
    const { item } = found;
    try {
      await client.views.open({ trigger_id: body.trigger_id, view: attachOrphansModal(item) });
    } catch (error) {
      await tellViewFailed(client, target, error, {
        action: "open",
        retry: "click Attach to order… again",
        logger: ctx.logger,
      });
    }
  };
}
