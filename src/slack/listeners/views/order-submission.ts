import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import type { LateWarning } from "../../../orders/dates/late-warning.ts";
import { OrderError } from "../../../orders/errors.ts";
import { resubmitOrder } from "../../../orders/resubmit.ts";
import { submitOrder } from "../../../orders/submit.ts";
import { FIELD_BLOCK } from "../../blocks/ids.ts";
import { buildNoticeModal } from "../../blocks/order-modal.ts";
import { errorsForBlocks } from "../../blocks/order-modal-errors.ts";
import type { SlackContext } from "../../context.ts";
import { compactForm, readOrderForm, type StateValues } from "../../form.ts";
import { InvalidMetadataError, type ModalMetadata } from "../../metadata.ts";
import { lateWarningModal, notAllowedModal } from "../../order-modal-views.ts";

/**
 * Where a new order's message goes. Only a modal opened from App Home has no channel (its order goes to a DM); any
 * other must name one. A resubmission keeps its order's channel, whatever the modal says.
 */
function originChannel(meta: ModalMetadata): string | null {
  if (meta.ch || meta.o) return meta.ch ?? null;
  if (meta.src === "home") return null;
  throw new InvalidMetadataError("no channel");
}

/**
 * Submit of the order modal. Everything that decides the answer happens before `ack` (Slack waits up to 3 s):
 * the rules (→ inline errors), authorization (→ the reason, in place of the form), then the order is stored and
 * its placement enqueued, atomically (→ the modal closes). The order's message is posted by the
 * placement job, so it appears even if this process stops right after answering.
 */
export function orderSubmission(ctx: SlackContext) {
  return async ({
    ack,
    body,
    view,
    logger,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const userId = body.user.id;
    let meta: ModalMetadata;
    let channelId: string | null;
    try {
      // Sealed by us for this user (src/slack/metadata.ts), or refused: the channel, thread and order it names
      // are where this modal was really opened.
      meta = ctx.metadata.open(view.private_metadata, userId);
      channelId = originChannel(meta);
    } catch (error) {
      if (!(error instanceof InvalidMetadataError)) throw error;
      logger.info(`view ${view.id} refused: ${error.message}`);
      await ack({ response_action: "update", view: buildNoticeModal("Order equipment", error.message) });
      return;
    }
    const form = compactForm(readOrderForm((view.state?.values ?? {}) as StateValues, meta));
    const showErrors = async (errors: Record<string, string[]>) => {
      const blockIds = new Set(view.blocks.map((b) => b.block_id).filter((id): id is string => Boolean(id)));
      const byBlock = errorsForBlocks(errors, form.lineKeys, {
        hasProfileBlock: blockIds.has(FIELD_BLOCK.profile),
        hasEdnBlock: blockIds.has(FIELD_BLOCK.externalDocumentNumber),
      });
      if (Object.keys(byBlock).length === 0)
        byBlock[FIELD_BLOCK.ticket] = "The order could not be checked; try again.";
      await ack({ response_action: "errors", errors: byBlock });
    };

    try {
      const result = meta.o
        ? await resubmitOrder(ctx.orders, meta.o, form.draft, userId, { acknowledged: meta.rw })
        : await submitOrder(ctx.orders, form.draft, {
            source: meta.src === "shortcut" ? "shortcut" : "command",
            requestedBy: userId,
            // A double click or a retried request carries the same view id: one order.
            idempotencyKey: `view:${view.root_view_id ?? view.id}`,
            teamId: body.team?.id,
            channelId,
            threadTs: meta.th,
            lateWarning: { acknowledged: meta.rw },
          });
      const warning = (result as { lateWarning?: LateWarning }).lateWarning;
      if (result.status === "invalid" && warning) {
        const warned = lateWarningModal(ctx, userId, form, meta, result.errors, warning);
        return await ack({ response_action: "update", view: warned });
      }
      if (result.status === "invalid") return await showErrors(result.errors);
      if (result.status === "forbidden") {
        return await ack({ response_action: "update", view: notAllowedModal(result.message) });
      }
      await ack();
      logger.debug(`order ${result.order.id} queued from view ${view.id}`);
    } catch (error) {
      if (error instanceof OrderError) {
        await ack({ response_action: "update", view: buildNoticeModal("Order equipment", error.message) });
        return;
      }
      // The database or the queue is unreachable: keep what was typed and say so, rather than Slack's
      // generic "trouble connecting".
      logger.error(`could not store the order: ${(error as Error).message}`);
      await ack({
        response_action: "errors",
        errors: {
          [FIELD_BLOCK.ticket]:
            "Order Desk could not save the order just now. Nothing was ordered; submit again in a moment.",
        },
      });
    }
  };
}
