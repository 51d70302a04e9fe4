import type { App, ViewSubmitAction } from "@slack/bolt";
import { CALLBACK } from "../../blocks/ids.ts";
import type { SlackContext } from "../../context.ts";
import { attachOrphansSubmission } from "./attach-orphans-submission.ts";
import { orderSubmission } from "./order-submission.ts";

export function register(app: App, ctx: SlackContext): void {
  app.view<ViewSubmitAction>(
    { callback_id: CALLBACK.orderModal, type: "view_submission" },
    orderSubmission(ctx),
  );
  app.view<ViewSubmitAction>(
    { callback_id: CALLBACK.attachOrphans, type: "view_submission" },
    attachOrphansSubmission(ctx),
  );
}
