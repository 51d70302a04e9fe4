/**
 * The modal in its three situations: a new order (from `/order`, the shortcut, App Home), the same form rebuilt
 * after "Add line"/"Remove line"/"Add bundle", and "Fix and resubmit" (the stored draft with the supplier's
 * objections on their fields).
 */
import type { types } from "@slack/bolt";
import type { Profile } from "../config/customer-schema.ts";
import type { LateWarning } from "../orders/dates/late-warning.ts";
import { emptyDraft, type OrderDraft, parseStoredDraft } from "../orders/draft.ts";
import { type FieldErrors, fieldErrorsFromDetails } from "../orders/fields.ts";
import type { Order } from "../orders/model/order.ts";
import { buildNoticeModal, buildOrderModal } from "./blocks/order-modal.ts";
import type { SlackContext } from "./context.ts";
import type { OrderForm } from "./form.ts";
import type { ModalMetadata } from "./metadata.ts";
import type { WebClient } from "./outbound/index.ts";

/** The view with its metadata sealed for `userId`, the only user whose payloads may carry it back. */
export function sealedFor(ctx: SlackContext, userId: string, view: types.ModalView): types.ModalView {
  return { ...view, private_metadata: ctx.metadata.seal(view.private_metadata ?? "", userId) };
}

export interface NewOrderModalInput {
  /** Who the modal is opened for: its metadata is sealed for them. */
  userId: string;
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
  return sealedFor(
    ctx,
    input.userId,
    buildOrderModal({
      customer: ctx.customer,
      draft: emptyDraft(only ?? "", input.ticket),
      profiles: input.profiles,
      meta,
    }),
  );
}

/**
 * The form again, as typed, with the late-delivery warning under **Needed by** (and the express checkbox when it
 * would arrive in time); its metadata remembers the warning, so submitting the same again places the order.
 */
export function lateWarningModal(
  ctx: SlackContext,
  userId: string,
  form: OrderForm,
  meta: ModalMetadata,
  errors: FieldErrors,
  warning: LateWarning,
): types.ModalView {
  const next: ModalMetadata = { ...meta, lk: form.lineKeys, rw: warning.key, xo: warning.expressOffered };
  const profiles = meta.pf
    ? [{ name: meta.pf }]
    : meta.ch
      ? ctx.customer.profilesForChannel(meta.ch)
      : ctx.customer.config.profiles;
  return sealedFor(
    ctx,
    userId,
    buildOrderModal({ customer: ctx.customer, draft: form.draft, profiles, meta: next, errors }),
  );
}

/**
 * Who sees the recipient's contact and address when reopening an order: the person who asked for it. The customer
 * file names no admin users (only an admin channel), so nobody else does; a colleague types them again.
 */
export function seesPersonalData(order: Order, userId: string): boolean {
  return order.source !== "workflow" && order.requestedBy === userId;
}

/** The draft without the delivery contact and address (the company, country and Office/Home stay). */
function withoutPersonalData(draft: OrderDraft): OrderDraft {
  return {
    ...draft,
    firstName: "",
    lastName: "",
    email: "",
    phone: "",
    attention: "",
    address1: "",
    address2: "",
    city: "",
    zip: "",
    state: "",
  };
}

function hiddenPersonalDataNotice(order: Order): string {
  const who =
    order.source === "workflow"
      ? "A workflow placed this order, so its recipient's contact and address are shown to nobody"
      : `Only <@${order.requestedBy}>, who asked for this order, sees its recipient's contact and address`;
  return `${who}: type them again. The order's message will show that you resubmitted it.`;
}

/**
 * The stored draft, reopened for fixing by `userId`; null when the order has no draft to reopen. Only the
 * requester sees the recipient's contact and address (`seesPersonalData`); anyone else gets those fields empty.
 */
export function resubmitModal(ctx: SlackContext, order: Order, userId: string): types.ModalView | null {
  const stored = parseStoredDraft(order.draft);
  if (!stored) return null;
  const mine = seesPersonalData(order, userId);
  const draft = mine ? stored : withoutPersonalData(stored);
  const failure = order.failure;
  let errors: FieldErrors = {};
  if (failure?.reason === "rejected" && failure.details) errors = fieldErrorsFromDetails(failure.details);
  if (failure?.reason === "duplicate_number") {
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
  return sealedFor(
    ctx,
    userId,
    buildOrderModal({
      customer: ctx.customer,
      draft: { ...draft, profile: order.profile },
      profiles: profile ? [profile] : [{ name: order.profile }],
      meta,
      errors,
      ...(mine ? {} : { notice: hiddenPersonalDataNotice(order) }),
    }),
  );
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
  client: WebClient,
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
