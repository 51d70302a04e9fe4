import type { App } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { appHomeOpened } from "./app-home-opened.ts";

export function register(app: App, ctx: SlackContext): void {
  app.event("app_home_opened", appHomeOpened(ctx));
}
