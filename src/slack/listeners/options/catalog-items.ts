import type { AllMiddlewareArgs, SlackOptionsMiddlewareArgs } from "@slack/bolt";
import { itemOption } from "../../blocks/order-modal.ts";
import type { SlackContext } from "../../context.ts";

/** The item type-ahead: catalog items matching every typed word, grouped by category (≤ 100 options). */
export function catalogItems(ctx: SlackContext) {
  return async ({ ack, options }: SlackOptionsMiddlewareArgs<"block_suggestion"> & AllMiddlewareArgs) => {
    const items = ctx.customer.searchItems(options.value ?? "", 100);
    const groups = new Map<string, ReturnType<typeof itemOption>[]>();
    for (const item of items) {
      const list = groups.get(item.category) ?? [];
      list.push(itemOption(ctx.customer, item.itemNumber));
      groups.set(item.category, list);
    }
    await ack({
      option_groups: [...groups].map(([category, list]) => ({
        label: { type: "plain_text", text: category.slice(0, 75) },
        options: list,
      })),
    });
  };
}
