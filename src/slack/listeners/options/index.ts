import type { App } from "@slack/bolt";
import { ACTION } from "../../blocks/ids.ts";
import type { SlackContext } from "../../context.ts";
import { catalogItems } from "./catalog-items.ts";
import { countries } from "./countries.ts";

export function register(app: App, ctx: SlackContext): void {
  app.options({ action_id: ACTION.lineItem }, catalogItems(ctx));
  app.options({ action_id: ACTION.country }, countries());
}
