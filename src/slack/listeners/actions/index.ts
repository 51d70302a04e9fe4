import type { App, BlockAction, ButtonAction, StaticSelectAction } from "@slack/bolt";
import { ACTION } from "../../blocks/ids.ts";
import type { SlackContext } from "../../context.ts";
import { addBundle } from "./add-bundle.ts";
import { addLine } from "./add-line.ts";
import { fixAndResubmit } from "./fix-and-resubmit.ts";
import { homePlaceOrder } from "./home-place-order.ts";
import { removeLine } from "./remove-line.ts";

export function register(app: App, ctx: SlackContext): void {
  app.action<BlockAction>(ACTION.addLine, addLine(ctx));
  app.action<BlockAction<StaticSelectAction>>(ACTION.removeLine, removeLine(ctx));
  app.action<BlockAction<StaticSelectAction>>(ACTION.addBundle, addBundle(ctx));
  app.action<BlockAction<ButtonAction>>(ACTION.fixAndResubmit, fixAndResubmit(ctx));
  app.action<BlockAction>(ACTION.homePlaceOrder, homePlaceOrder(ctx));
}
