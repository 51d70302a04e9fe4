/**
 * An order draft: what the agent typed in the modal (or a workflow passed in), before any rule ran. Values are
 * kept as typed (strings, "" for empty) so the modal can be reopened exactly as the agent left it ("Fix and
 * resubmit"); `draftToRequest` is the one place that turns a draft into the supplier's request.
 */
import { z } from "zod";

export const draftLineSchema = z.object({
  itemNumber: z.string(),
  /** As typed; a whole number ≥ 1 once checked. */
  quantity: z.string(),
  comment: z.string(),
});

export const orderDraftSchema = z.object({
  /** Profile name from the customer file. */
  profile: z.string(),
  /** The ticket id, sent as `customerReference`. */
  ticket: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  phone: z.string(),
  deliveryAt: z.enum(["Office", "Home"]).nullable(),
  company: z.string(),
  attention: z.string(),
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  zip: z.string(),
  state: z.string(),
  /** ISO 3166-1 alpha-2. */
  country: z.string(),
  lines: z.array(draftLineSchema),
  /** "" → generated from the pattern in the customer file. */
  externalDocumentNumber: z.string(),
  shippingReference: z.string(),
  /** The date it is needed by (YYYY-MM-DD), "" or absent when not given. */
  neededBy: z.string().optional(),
  /** Send it as the customer file's express order type (offered when the standard lead time would be late). */
  express: z.boolean().optional(),
});

export type DraftLine = z.infer<typeof draftLineSchema>;
export type OrderDraft = z.infer<typeof orderDraftSchema>;

export function emptyLine(): DraftLine {
  return { itemNumber: "", quantity: "1", comment: "" };
}

export function emptyDraft(profile: string, ticket = ""): OrderDraft {
  return {
    profile,
    ticket,
    firstName: "",
    lastName: "",
    email: "",
    phone: "",
    deliveryAt: null,
    company: "",
    attention: "",
    address1: "",
    address2: "",
    city: "",
    zip: "",
    state: "",
    country: "",
    lines: [emptyLine()],
    externalDocumentNumber: "",
    shippingReference: "",
  };
}

/** A line the agent added and left untouched ("Add line", then nothing) is not an order line. */
export function isBlankLine(line: DraftLine): boolean {
  return line.itemNumber.trim() === "" && line.comment.trim() === "" && /^\s*1?\s*$/.test(line.quantity);
}

/** Trims every value and drops blank lines, so line indexes match the request's `OrderLines[i]`. */
export function normalizeDraft(draft: OrderDraft): OrderDraft {
  const t = (s: string) => s.trim();
  return {
    ...draft,
    profile: t(draft.profile),
    ticket: t(draft.ticket),
    firstName: t(draft.firstName),
    lastName: t(draft.lastName),
    email: t(draft.email),
    phone: t(draft.phone),
    company: t(draft.company),
    attention: t(draft.attention),
    address1: t(draft.address1),
    address2: t(draft.address2),
    city: t(draft.city),
    zip: t(draft.zip),
    state: t(draft.state),
    country: t(draft.country).toUpperCase(),
    lines: draft.lines
      .filter((l) => !isBlankLine(l))
      .map((l) => ({ itemNumber: t(l.itemNumber), quantity: t(l.quantity), comment: t(l.comment) })),
    externalDocumentNumber: t(draft.externalDocumentNumber),
    shippingReference: t(draft.shippingReference),
    ...(draft.neededBy !== undefined && { neededBy: t(draft.neededBy) }),
  };
}

/** Reads a stored draft back (the database is ours, but a draft written by an older version may differ). */
export function parseStoredDraft(value: unknown): OrderDraft | null {
  const parsed = orderDraftSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
