import type { App } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { orderCommand } from "./order-command.ts";

export function register(app: App, ctx: SlackContext): void {
  app.command("/order", orderCommand(ctx));
}
