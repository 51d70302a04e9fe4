/**
 * Draft + profile → the supplier's createOrderRequest. The agent supplies the delivery and the lines; the profile
 * supplies what was agreed with the account manager (invoice, consignee, sell-to, order type).
 */
import type { Profile } from "../config/customer-schema.ts";
import type { OrderDraft } from "./draft.ts";

const orNull = (value: string): string | null => (value.trim() === "" ? null : value.trim());

/** "3" → 3; anything that is not a plain whole number stays as typed so the rules report it. */
export function parseQuantity(value: string): number | string | null {
  const trimmed = value.trim();
  if (trimmed === "") return null;
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/**
 * Builds the request as plain data, without judging it: `checkOrderRequest` (the supplier's rules) decides
 * whether it is valid, and reports problems under the supplier's paths.
 */
export function draftToRequest(
  draft: OrderDraft,
  profile: Profile,
  externalDocumentNumber: string,
  /** The customer file's express order type, used when the draft asks for express. */
  expressType?: string,
): unknown {
  const { id: invoiceId, ...invoiceRest } = profile.invoice;
  return {
    externalDocumentNumber,
    type: draft.express && expressType ? expressType : profile.orderType,
    customerReference: orNull(draft.ticket),
    invoice: { id: invoiceId, ...invoiceRest },
    consignee: profile.consignee,
    ...(profile.sellTo ? { sellTo: profile.sellTo } : {}),
    shipping: {
      companyName: orNull(draft.company),
      deliveryAt: draft.deliveryAt,
      contact: {
        firstName: draft.firstName.trim(),
        lastName: draft.lastName.trim(),
        phoneNumber: draft.phone.trim(),
        email: draft.email.trim(),
      },
      address1: draft.address1.trim(),
      address2: orNull(draft.address2),
      city: draft.city.trim(),
      zipCode: draft.zip.trim(),
      stateName: orNull(draft.state),
      countryIso2: draft.country.trim().toUpperCase(),
      attention: orNull(draft.attention),
      reference: orNull(draft.shippingReference),
    },
    orderLines: draft.lines.map((line) => ({
      itemNumber: line.itemNumber.trim(),
      quantity: parseQuantity(line.quantity),
      comments: orNull(line.comment),
    })),
  };
}
