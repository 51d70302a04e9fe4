import type { App, MessageShortcut } from "@slack/bolt";
import { CALLBACK } from "../../blocks/ids.ts";
import type { SlackContext } from "../../context.ts";
import { orderFromMessage } from "./order-from-message.ts";

export function register(app: App, ctx: SlackContext): void {
  app.shortcut<MessageShortcut>(
    { type: "message_action", callback_id: CALLBACK.orderFromMessage },
    orderFromMessage(ctx),
  );
}
