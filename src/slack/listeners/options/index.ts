import type { AllMiddlewareArgs, App, SlackOptionsMiddlewareArgs } from "@slack/bolt";
import { ACTION } from "../../blocks/ids.ts";
import type { SlackContext } from "../../context.ts";
import { anyOf, routeById } from "../route.ts";
import { catalogItems } from "./catalog-items.ts";
import { countries } from "./countries.ts";

type OptionsArgs = SlackOptionsMiddlewareArgs<"block_suggestion"> & AllMiddlewareArgs;

/** The modal's type-aheads, one Bolt listener routed by action id (`../route.ts` says why). */
export function register(app: App, ctx: SlackContext): void {
  const handlers = new Map<string, (args: OptionsArgs) => Promise<void>>([
    [ACTION.lineItem, catalogItems(ctx)],
    [ACTION.country, countries()],
  ]);
  app.options<"block_suggestion">(
    { action_id: anyOf(handlers.keys()) },
    routeById(handlers, (args) => args.body.action_id),
  );
}
