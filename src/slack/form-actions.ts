/**
 * "Add line", "Remove line", "Add bundle": rebuild the modal from what is typed so far and `views.update` it. The
 * line blocks keep their keys, so Slack keeps every typed value; the view's hash makes a stale rebuild (two quick
 * clicks) fail harmlessly instead of overwriting a newer form. Any other failure is told to the user (the click was
 * acked: without a word they would see nothing happen).
 */
import type { OrderDraft } from "../orders/draft.ts";
import { buildOrderModal } from "./blocks/order-modal.ts";
import type { SlackContext } from "./context.ts";
import { type OrderForm, readOrderForm, type StateValues } from "./form.ts";
import { InvalidMetadataError, type ModalMetadata } from "./metadata.ts";
import { sealedFor } from "./order-modal-views.ts";
import { slackErrorOf, type WebClient } from "./outbound/index.ts";
import { tellViewFailed } from "./view-failures.ts";

export interface FormChange {
  form: OrderForm;
  meta: ModalMetadata;
  notice?: string;
}

/**
 * `clicked.userId`: who clicked. The view's metadata must have been sealed for them (else `InvalidMetadataError`
 * and no update): re-sealing metadata someone else wrote would make this a way to forge it.
 */
export async function updateOrderModal(
  ctx: SlackContext,
  client: WebClient,
  view: {
    id: string;
    hash: string;
    private_metadata?: string | undefined;
    state?: { values: unknown } | undefined;
  },
  /** Who clicked, and how to try again in their words ("click Add line again"). */
  clicked: { userId: string; retry: string },
  change: (form: OrderForm, meta: ModalMetadata) => FormChange,
): Promise<void> {
  const { userId } = clicked;
  let meta: ModalMetadata;
  try {
    meta = ctx.metadata.open(view.private_metadata, userId);
  } catch (error) {
    if (!(error instanceof InvalidMetadataError)) throw error;
    ctx.logger.info({ viewId: view.id, userId }, `order form not rebuilt: ${error.message}`);
    return;
  }
  const form = readOrderForm((view.state?.values ?? {}) as StateValues, meta);
  const next = change(form, meta);
  const draft: OrderDraft = next.form.draft;
  const profiles = next.meta.pf
    ? [{ name: next.meta.pf }]
    : next.meta.ch
      ? ctx.customer.profilesForChannel(next.meta.ch)
      : ctx.customer.config.profiles;
  const rebuilt = sealedFor(
    ctx,
    userId,
    buildOrderModal({
      customer: ctx.customer,
      draft,
      profiles,
      meta: { ...next.meta, lk: next.form.lineKeys },
      ...(next.notice ? { notice: next.notice } : {}),
    }),
  );
  try {
    await client.views.update({ view_id: view.id, hash: view.hash, view: rebuilt });
  } catch (error) {
    if (slackErrorOf(error) === "hash_conflict") return; // a newer rebuild won; nothing to do
    await tellViewFailed(client, { userId: clicked.userId, channelId: meta.ch }, error, {
      action: "update",
      retry: clicked.retry,
      logger: ctx.logger,
    });
  }
}
