/** The order message and its thread replies, as the post-update worker (src/orders/updates/) asks for them. */
import type { UpdatePresenter } from "../../../orders/updates/post-update-deps.ts";
import { type OrderMessageOptions, orderMessage } from "../order-message.ts";
import { renderOrderReply, renderOrderShortReply } from "./order-reply.ts";

/** `clock`: the order message's dates are said from its today at each rendering (`now` fixes one instant). */
export function updatePresenter(options: OrderMessageOptions & { clock?: () => Date }): UpdatePresenter {
  const { clock, ...fixed } = options;
  return {
    parent: (order) => orderMessage(order, clock ? { ...fixed, now: clock() } : fixed),
    reply: renderOrderReply,
    shortReply: renderOrderShortReply,
  };
}
