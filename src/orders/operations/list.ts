/** App Home's "Needs attention": shown to admins only, newest first, with a count per kind. */
import type { CustomerConfig } from "../../config/customer-schema.ts";
import type { Queryable, Store } from "../../store/db.ts";
import { getAttention, listAllOpenAttention, listOpenAttention } from "../../store/repositories/attention.ts";
import { checkAdmin } from "../admins.ts";
import type { Membership } from "../authorization.ts";
import type { AttentionItem, AttentionList } from "./types.ts";

export interface NeedsAttentionDeps {
  store: Store;
  membership: Pick<Membership, "isAmong">;
  config: Pick<CustomerConfig, "admins" | "adminGroups">;
}

/** How many items App Home lists (2 blocks each, beside "My orders" within Slack's 100 blocks). */
export const NEEDS_ATTENTION_LIMIT = 12;

/** The open items for an admin; null for anyone else (or when their membership could not be checked). */
export async function needsAttentionFor(
  deps: NeedsAttentionDeps,
  userId: string,
): Promise<AttentionList | null> {
  const admin = await checkAdmin(deps.membership, deps.config, userId);
  if (!admin.allowed) return null;
  return listOpenAttention(deps.store, NEEDS_ATTENTION_LIMIT);
}

/** Every open item for an admin ("See all"), at most `limit`; null for anyone else. */
export async function allAttentionFor(
  deps: NeedsAttentionDeps,
  userId: string,
  limit: number,
): Promise<AttentionList | null> {
  const admin = await checkAdmin(deps.membership, deps.config, userId);
  if (!admin.allowed) return null;
  return listAllOpenAttention(deps.store, limit);
}

/** The orphan-events item an admin is about to attach to an order, or why there is none to attach. */
export async function orphanItemToAttach(
  store: Queryable,
  id: string,
): Promise<{ item: AttentionItem } | { refused: "unknown" | "handled" }> {
  const item = id ? await getAttention(store, id) : null;
  if (item?.kind !== "orphan_events") return { refused: "unknown" };
  if (item.resolvedAt !== null) return { refused: "handled" };
  return { item };
}
