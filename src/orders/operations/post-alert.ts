/**
 * An attention item's alert, posted once. The attempt is recorded before Slack is called: a post whose answer was
 * lost (a timeout, a kill -9 before the ts was stored) is looked for in the admin channel by the next attempt
 * instead of being posted a second time.
 */
import type { Store } from "../../store/db.ts";
import { markAlertAttempted, setAttentionAlert } from "../../store/repositories/attention.ts";
import type { AttentionAlerts } from "./report.ts";
import type { AttentionItem } from "./types.ts";

/** Posts the item's alert (or finds the one an interrupted attempt posted) and records where it is. */
export async function postAlert(
  store: Store,
  alerts: Pick<AttentionAlerts, "post">,
  item: AttentionItem,
): Promise<AttentionItem> {
  const earlierAttempt = await markAlertAttempted(store, item.id);
  const where = await alerts.post(item, earlierAttempt);
  return (await setAttentionAlert(store, item.id, where)) ?? item;
}
