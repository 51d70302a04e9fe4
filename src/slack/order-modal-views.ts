/**
 * The modal in its three situations: a new order (from `/order`, the shortcut, App Home), the same form rebuilt
 * after "Add line"/"Remove line"/"Add bundle", and "Fix and resubmit" (the stored draft with the supplier's
 * objections on their fields).
 */
import type { types, webApi } from "@slack/bolt";
import type { Profile } from "../config/customer-schema.ts";
import { emptyDraft, parseStoredDraft } from "../orders/draft.ts";
import { type FieldErrors, fieldErrorsFromDetails } from "../orders/fields.ts";
import type { Order } from "../store/repositories/orders.ts";
import { buildNoticeModal, buildOrderModal } from "./blocks/order-modal.ts";
import type { SlackContext } from "./context.ts";
import type { ModalMetadata } from "./metadata.ts";

export interface NewOrderModalInput {
  profiles: readonly Profile[];
  source: ModalMetadata["src"];
  channelId?: string | undefined;
  threadTs?: string | undefined;
  ticket: string;
}

export function newOrderModal(ctx: SlackContext, input: NewOrderModalInput): types.ModalView {
  const only = input.profiles.length === 1 ? input.profiles[0]!.name : undefined;
  const meta: ModalMetadata = {
    v: 1,
    src: input.source,
    lk: ["0"],
    nk: 1,
    ...(input.channelId ? { ch: input.channelId } : {}),
    ...(input.threadTs ? { th: input.threadTs } : {}),
    ...(only ? { pf: only } : {}),
  };
  return buildOrderModal({
    customer: ctx.customer,
    draft: emptyDraft(only ?? "", input.ticket),
    profiles: input.profiles,
    meta,
  });
}

/** The stored draft, reopened for fixing; null when the order has no draft to reopen. */
export function resubmitModal(ctx: SlackContext, order: Order): types.ModalView | null {
  const draft = parseStoredDraft(order.draft);
  if (!draft) return null;
  const error = (order.lastError ?? {}) as { code?: unknown; details?: unknown };
  let errors: FieldErrors = {};
  if (error.details && typeof error.details === "object") {
    errors = fieldErrorsFromDetails(error.details as Record<string, string[]>);
  }
  if (error.code === "DUPLICATE_ORDER") {
    errors.externalDocumentNumber = [
      `The supplier already has an order numbered ${order.externalDocumentNumber}. Leave this empty to get a new number, or type another one.`,
    ];
  }
  const keys = draft.lines.map((_, i) => i.toString(36));
  const meta: ModalMetadata = {
    v: 1,
    src: order.source === "shortcut" ? "shortcut" : "command",
    lk: keys.length > 0 ? keys : ["0"],
    nk: Math.max(keys.length, 1),
    o: order.id,
    pf: order.profile,
    ...(order.slackChannelId ? { ch: order.slackChannelId } : {}),
  };
  const profile = ctx.customer.profile(order.profile);
  return buildOrderModal({
    customer: ctx.customer,
    draft: { ...draft, profile: order.profile },
    profiles: profile ? [profile] : [{ name: order.profile }],
    meta,
    errors,
  });
}

export function notAllowedModal(message: string): types.ModalView {
  return buildNoticeModal("Not allowed", message);
}

/**
 * `/order` opens the modal first (the trigger expires in 3 s) and checks group membership after: someone who may
 * not order sees the form replaced by the reason instead of typing it all for nothing.
 */
export async function replaceIfNotAllowed(
  ctx: SlackContext,
  client: webApi.WebClient,
  view: { id?: string; hash?: string } | undefined,
  profiles: readonly Profile[],
  userId: string,
): Promise<void> {
  if (!view?.id || profiles.some((p) => ctx.orders.authorizer.isListed(p, userId))) return;
  const results = await Promise.all(profiles.map((p) => ctx.orders.authorizer.check(p, userId)));
  if (results.some((r) => r.allowed)) return;
  const denied = results.find((r) => !r.allowed && r.reason === "not_listed") ?? results[0];
  if (!denied || denied.allowed) return;
  await client.views.update({
    view_id: view.id,
    ...(view.hash ? { hash: view.hash } : {}),
    view: notAllowedModal(denied.message),
  });
}
