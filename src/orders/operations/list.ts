/** App Home's "Needs attention": shown to admins only, newest first, with a count per kind. */
import type { CustomerConfig } from "../../config/customer-schema.ts";
import type { Store } from "../../store/db.ts";
import { listOpenAttention } from "../../store/repositories/attention.ts";
import { checkAdmin } from "../admins.ts";
import type { Membership } from "../authorization.ts";
import type { AttentionList } from "./types.ts";

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
