/** The order message and its thread replies, as the post-update worker (src/orders/updates/) asks for them. */
import type { UpdatePresenter } from "../../../orders/updates/post-update-deps.ts";
import { type OrderMessageOptions, orderMessage } from "../order-message.ts";
import { renderOrderReply, renderOrderShortReply } from "./order-reply.ts";

export function updatePresenter(options: OrderMessageOptions): UpdatePresenter {
  return {
    parent: (order) => orderMessage(order, options),
    reply: renderOrderReply,
    shortReply: renderOrderShortReply,
  };
}
