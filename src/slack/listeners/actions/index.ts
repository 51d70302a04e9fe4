import type { AllMiddlewareArgs, App, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { ACTION } from "../../blocks/ids.ts";
import type { SlackContext } from "../../context.ts";
import { anyOf, routeById } from "../route.ts";
import { addBundle } from "./add-bundle.ts";
import { addLine } from "./add-line.ts";
import { approveOrder } from "./approve-order.ts";
import { attentionAttachOrphans } from "./attention-attach-orphans.ts";
import { attentionDetachOrphans } from "./attention-detach-orphans.ts";
import { attentionIgnoreOrphans } from "./attention-ignore-orphans.ts";
import { attentionMarkHandled } from "./attention-mark-handled.ts";
import { attentionReprocessEvents } from "./attention-reprocess-events.ts";
import { attentionRetryOrder } from "./attention-retry-order.ts";
import { attentionRetryPosting } from "./attention-retry-posting.ts";
import { attentionSeeAll } from "./attention-see-all.ts";
import { fixAndResubmit } from "./fix-and-resubmit.ts";
import { homePlaceOrder } from "./home-place-order.ts";
import { rejectOrder } from "./reject-order.ts";
import { removeLine } from "./remove-line.ts";
import { updateTotal } from "./update-total.ts";

type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
type ActionHandler = (args: ActionArgs) => Promise<void>;

/**
 * Buttons and menus, one Bolt listener routed by action id (`../route.ts` says why). A handler typed with a
 * narrower element (a button, a static select) gets only that element's actions: its id is on no other.
 */
export function register(app: App, ctx: SlackContext): void {
  const handlers = new Map<string, ActionHandler>([
    [ACTION.addLine, addLine(ctx)],
    [ACTION.removeLine, removeLine(ctx) as ActionHandler],
    [ACTION.addBundle, addBundle(ctx) as ActionHandler],
    [ACTION.lineItem, updateTotal(ctx)],
    [ACTION.lineQuantity, updateTotal(ctx)],
    [ACTION.country, updateTotal(ctx)],
    [ACTION.fixAndResubmit, fixAndResubmit(ctx) as ActionHandler],
    [ACTION.homePlaceOrder, homePlaceOrder(ctx)],
    [ACTION.approveOrder, approveOrder(ctx) as ActionHandler],
    [ACTION.rejectOrder, rejectOrder(ctx) as ActionHandler],
    [ACTION.retryOrder, attentionRetryOrder(ctx) as ActionHandler],
    [ACTION.markHandled, attentionMarkHandled(ctx) as ActionHandler],
    [ACTION.retryPosting, attentionRetryPosting(ctx) as ActionHandler],
    [ACTION.attachOrphans, attentionAttachOrphans(ctx) as ActionHandler],
    [ACTION.ignoreOrphans, attentionIgnoreOrphans(ctx) as ActionHandler],
    [ACTION.reprocessEvents, attentionReprocessEvents(ctx) as ActionHandler],
    [ACTION.attentionSeeAll, attentionSeeAll(ctx) as ActionHandler],
    [ACTION.detachOrphans, attentionDetachOrphans(ctx) as ActionHandler],
  ]);
  app.action<BlockAction>(
    { action_id: anyOf(handlers.keys()) },
    routeById(handlers, (args) => args.action.action_id),
  );
}
