import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { publishHome } from "../../home.ts";

/** Refreshes "My orders" whenever the user opens the app's Home tab. */
export function appHomeOpened(ctx: SlackContext) {
  return async ({ event, client }: SlackEventMiddlewareArgs<"app_home_opened"> & AllMiddlewareArgs) => {
    if (event.tab !== "home") return;
    await publishHome(ctx, client, event.user);
  };
}
