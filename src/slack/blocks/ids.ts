/**
 * Every callback, block and action id Order Desk's surfaces use, in one place: listeners register on these and
 * the builders emit them, so a rename cannot leave a button without a handler.
 */
import type { ScalarField } from "../../orders/fields.ts";

export const CALLBACK = {
  orderModal: "order_modal",
  notice: "order_notice",
  /** manifest.yml `shortcuts[].callback_id` */
  orderFromMessage: "order_from_message",
  rejectReason: "approval_reject_reason",
  /** "Attach to order…" on orphan events: the modal asking for the order's number. */
  attachOrphans: "attention_attach_modal",
  /** "See all" under App Home's "Needs attention": the list (read only; closing it does nothing). */
  attentionList: "attention_list",
} as const;

export const ACTION = {
  addLine: "add_line",
  removeLine: "remove_line",
  addBundle: "add_bundle",
  lineItem: "line_item",
  lineQuantity: "line_quantity",
  lineComment: "line_comment",
  country: "country",
  fixAndResubmit: "fix_and_resubmit",
  homePlaceOrder: "home_place_order",
  approveOrder: "approve_order",
  rejectOrder: "reject_order",
  /** Admin alerts and App Home's "Needs attention" (the value is the attention item's id). */
  retryOrder: "attention_retry_order",
  markHandled: "attention_mark_handled",
  retryPosting: "attention_retry_posting",
  attachOrphans: "attention_attach_orphans",
  ignoreOrphans: "attention_ignore_orphans",
  reprocessEvents: "attention_reprocess_events",
  /** App Home's "See all" under "Needs attention": every open item in a modal. */
  attentionSeeAll: "attention_see_all",
  /** On an orphan alert resolved as attached: undo the attach. */
  detachOrphans: "attention_detach_orphans",
  /** Plain value inputs: the action id is the block id. */
  value: "value",
} as const;

/** Block ids of the modal's scalar inputs; a field's errors are shown on its block. */
export const FIELD_BLOCK: Record<ScalarField, string> = {
  profile: "profile",
  ticket: "ticket",
  firstName: "first_name",
  lastName: "last_name",
  email: "email",
  phone: "phone",
  deliveryAt: "delivery_at",
  company: "company",
  attention: "attention",
  address1: "address1",
  address2: "address2",
  city: "city",
  zip: "zip",
  state: "state",
  country: "country",
  // "Add at least one item" is shown on the first line's item.
  lines: "",
  externalDocumentNumber: "external_document_number",
  shippingReference: "shipping_reference",
  neededBy: "needed_by",
};

/** The "Use Express" checkbox (offered when the standard lead time would be late). */
export const EXPRESS_BLOCK = "express";

export const LINE_BLOCK = {
  item: (key: string) => `line_${key}_item`,
  quantity: (key: string) => `line_${key}_quantity`,
  comment: (key: string) => `line_${key}_comment`,
} as const;

export const BLOCK = {
  lineActions: "line_actions",
  orderActions: "order_actions",
  approvalActions: "approval_actions",
  rejectReason: "reject_reason",
  attentionActions: "attention_actions",
  attentionSeeAll: "attention_see_all",
  /** The attach modal's order-number input. */
  attachOrderNumber: "attach_order_number",
} as const;
