/**
 * Reads the order modal's `view.state.values` back into a draft. Everything here came from Slack's payload: values
 * are read defensively (a missing block is an empty field) and judged later by `checkDraft`.
 */
import { type DraftLine, isBlankLine, type OrderDraft } from "../orders/draft.ts";
import { ACTION, EXPRESS_BLOCK, FIELD_BLOCK, LINE_BLOCK } from "./blocks/ids.ts";
import type { ModalMetadata } from "./metadata.ts";

export type StateValues = Record<string, Record<string, unknown> | undefined>;

interface ElementState {
  value?: string | null;
  selected_option?: { value?: string } | null;
  /** A datepicker's YYYY-MM-DD (as Slack sends it; judged by `checkDraft` like any typed value). */
  selected_date?: string | null;
  selected_options?: { value?: string }[] | null;
}

function element(values: StateValues, blockId: string, actionId: string): ElementState | undefined {
  const state = values[blockId]?.[actionId];
  return typeof state === "object" && state !== null ? (state as ElementState) : undefined;
}

function text(values: StateValues, blockId: string, actionId: string = ACTION.value): string {
  const state = element(values, blockId, actionId);
  const raw = state?.value ?? state?.selected_option?.value ?? state?.selected_date ?? "";
  return typeof raw === "string" ? raw : "";
}

export interface OrderForm {
  /** Every line, blank ones included, aligned with `lineKeys`. */
  draft: OrderDraft;
  lineKeys: string[];
}

export function readOrderForm(values: StateValues, meta: ModalMetadata): OrderForm {
  const deliveryAt = text(values, FIELD_BLOCK.deliveryAt);
  const lines: DraftLine[] = meta.lk.map((key) => ({
    itemNumber: text(values, LINE_BLOCK.item(key), ACTION.lineItem),
    quantity: text(values, LINE_BLOCK.quantity(key), ACTION.lineQuantity),
    comment: text(values, LINE_BLOCK.comment(key), ACTION.lineComment),
  }));
  return {
    lineKeys: [...meta.lk],
    draft: {
      profile: values[FIELD_BLOCK.profile] ? text(values, FIELD_BLOCK.profile) : (meta.pf ?? ""),
      ticket: text(values, FIELD_BLOCK.ticket),
      firstName: text(values, FIELD_BLOCK.firstName),
      lastName: text(values, FIELD_BLOCK.lastName),
      email: text(values, FIELD_BLOCK.email),
      phone: text(values, FIELD_BLOCK.phone),
      deliveryAt: deliveryAt === "Office" || deliveryAt === "Home" ? deliveryAt : null,
      company: text(values, FIELD_BLOCK.company),
      attention: text(values, FIELD_BLOCK.attention),
      address1: text(values, FIELD_BLOCK.address1),
      address2: text(values, FIELD_BLOCK.address2),
      city: text(values, FIELD_BLOCK.city),
      zip: text(values, FIELD_BLOCK.zip),
      state: text(values, FIELD_BLOCK.state),
      country: text(values, FIELD_BLOCK.country, ACTION.country),
      lines,
      externalDocumentNumber: text(values, FIELD_BLOCK.externalDocumentNumber),
      shippingReference: text(values, FIELD_BLOCK.shippingReference),
      neededBy: text(values, FIELD_BLOCK.neededBy),
      ...(expressTicked(values) && { express: true }),
    },
  };
}

function expressTicked(values: StateValues): boolean {
  const options = element(values, EXPRESS_BLOCK, ACTION.value)?.selected_options;
  return Array.isArray(options) && options.some((o) => o?.value === "express");
}

/** Drops the lines left blank, keeping each remaining line's key (errors on `lines.<i>` find their block). */
export function compactForm(form: OrderForm): OrderForm {
  const keep = form.draft.lines
    .map((line, i) => ({ line, key: form.lineKeys[i]! }))
    .filter((x) => !isBlankLine(x.line));
  return { draft: { ...form.draft, lines: keep.map((x) => x.line) }, lineKeys: keep.map((x) => x.key) };
}
