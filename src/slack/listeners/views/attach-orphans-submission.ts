import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { runOperatorAction } from "../../../orders/operations/act.ts";
import type { ActionOutcome } from "../../../orders/operations/types.ts";
import { ACTION, BLOCK } from "../../blocks/ids.ts";
import type { SlackContext } from "../../context.ts";
import { itemIdOf, refusedToNonAdmin, reportOutcome, STORE_DOWN } from "../../operator-click.ts";

/**
 * The attach modal's submission: the clicker is checked again (the modal could have been opened by an admin who
 * no longer is one), the item is looked up by the id in `private_metadata` (only a lookup key), and the orphans
 * join the order with the typed number, once. A number that matches no order is shown on the field; otherwise
 * the modal closes and the admin is told in a DM (a view has no response_url).
 */
export function attachOrphansSubmission(ctx: SlackContext) {
  return async ({
    ack,
    body,
    view,
    client,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    const userId = body.user.id;
    const target = { userId };
    const errors = (text: string) =>
      ack({ response_action: "errors", errors: { [BLOCK.attachOrderNumber]: text } });
    const refused = await refusedToNonAdmin(ctx, userId);
    if (refused) {
      await errors(refused);
      return;
    }
    const typed = view.state.values[BLOCK.attachOrderNumber]?.[ACTION.value]?.value ?? "";
    let outcome: ActionOutcome;
    try {
      outcome = await runOperatorAction(ctx.operators.deps, {
        itemId: itemIdOf(view.private_metadata),
        action: "attach_orphans",
        by: userId,
        orderNumber: typed,
      });
    } catch (error) {
      ctx.logger.error({ err: error }, "attaching orphan events failed");
      await errors(STORE_DOWN);
      return;
    }
    if (outcome.kind === "invalid" || outcome.kind === "refused") {
      await errors(outcome.kind === "invalid" ? outcome.reason : `Nothing was done: ${outcome.reason}.`);
      return;
    }
    await ack();
    ctx.logger.info({ userId, outcome: outcome.kind }, "admin action: attach orphan events");
    await reportOutcome(ctx, client, target, outcome, false);
  };
}
