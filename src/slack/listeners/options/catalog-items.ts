import type { AllMiddlewareArgs, SlackOptionsMiddlewareArgs } from "@slack/bolt";
import type { Profile } from "../../../config/customer-schema.ts";
import { itemOption } from "../../blocks/order-modal-lines.ts";
import type { SlackContext } from "../../context.ts";
import { InvalidMetadataError } from "../../metadata.ts";

type OptionsArgs = SlackOptionsMiddlewareArgs<"block_suggestion"> & AllMiddlewareArgs;

/**
 * Whether this type-ahead request comes from an order modal we opened for this user (its metadata is sealed for
 * them) and the user may order with one of the profiles that modal offers. The catalog is the customer's
 * agreement with the supplier: it is not shown to anyone else.
 */
async function mayBrowse(ctx: SlackContext, body: OptionsArgs["body"]): Promise<boolean> {
  const userId = body.user?.id;
  const view = (body as { view?: { private_metadata?: string } }).view;
  if (!userId || !view) return false;
  let profiles: Profile[];
  try {
    const meta = ctx.metadata.open(view.private_metadata, userId);
    const named = meta.pf ? ctx.customer.profile(meta.pf) : undefined;
    profiles = named
      ? [named]
      : meta.ch
        ? ctx.customer.profilesForChannel(meta.ch)
        : ctx.customer.config.profiles;
  } catch (error) {
    if (error instanceof InvalidMetadataError) return false;
    throw error;
  }
  const { authorizer } = ctx.orders;
  if (profiles.some((p) => authorizer.isListed(p, userId))) return true;
  for (const profile of profiles) {
    if ((await authorizer.check(profile, userId)).allowed) return true;
  }
  return false;
}

/** The item type-ahead: catalog items matching every typed word, grouped by category (≤ 100 options). */
export function catalogItems(ctx: SlackContext) {
  return async ({ ack, options, body }: OptionsArgs) => {
    if (!(await mayBrowse(ctx, body))) {
      ctx.logger.info(
        { userId: body.user?.id },
        "catalog type-ahead refused: not an order form opened for this user, or the user may not order",
      );
      await ack({ options: [] });
      return;
    }
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
