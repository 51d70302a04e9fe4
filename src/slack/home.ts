/** Publishing App Home's "My orders" for a user (on app_home_opened, and by anyone whose change shows there). */
import type { webApi } from "@slack/bolt";
import { listRecentOrdersForUser } from "../store/repositories/orders.ts";
import { buildHomeView, HOME_ORDER_LIMIT } from "./blocks/home.ts";
import type { SlackContext } from "./context.ts";

export async function publishHome(
  ctx: Pick<SlackContext, "store">,
  client: webApi.WebClient,
  userId: string,
): Promise<void> {
  const orders = await listRecentOrdersForUser(ctx.store, userId, HOME_ORDER_LIMIT);
  await client.views.publish({ user_id: userId, view: buildHomeView(orders) });
}
